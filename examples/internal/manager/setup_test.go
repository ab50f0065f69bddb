package manager

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestControllerOptionsWithDefaults: unset (and negative) fields get their
// defaults, set ones stay, and each empty epoch becomes a new random one.
func TestControllerOptionsWithDefaults(t *testing.T) {
	clock := func() time.Time { return time.Unix(0, 0) }
	tests := []struct {
		name      string
		in        ControllerOptions
		want      ControllerOptions // Epoch "": any non-empty; Now nil: time.Now
		wantClock bool              // Now is clock
	}{
		{
			name: "zero",
			want: ControllerOptions{MaxConcurrentClaims: DefaultMaxConcurrentClaims, RetryWaiting: DefaultRetryWaiting},
		},
		{
			name: "negative",
			in:   ControllerOptions{MaxConcurrentClaims: -1, RetryWaiting: -time.Second},
			want: ControllerOptions{MaxConcurrentClaims: DefaultMaxConcurrentClaims, RetryWaiting: DefaultRetryWaiting},
		},
		{
			name:      "set",
			in:        ControllerOptions{Epoch: "e1", Now: clock, MaxConcurrentClaims: 3, RetryWaiting: time.Millisecond, SkipNameValidation: true},
			want:      ControllerOptions{Epoch: "e1", MaxConcurrentClaims: 3, RetryWaiting: time.Millisecond, SkipNameValidation: true},
			wantClock: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.WithDefaults()
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(ControllerOptions{}, "Epoch", "Now")); diff != "" {
				t.Errorf("WithDefaults (-want +got):\n%s", diff)
			}
			switch {
			case tt.want.Epoch != "" && got.Epoch != tt.want.Epoch:
				t.Errorf("Epoch = %q, want %q", got.Epoch, tt.want.Epoch)
			case tt.want.Epoch == "" && (got.Epoch == "" || got.Epoch == tt.in.WithDefaults().Epoch):
				t.Errorf("Epoch = %q, want a new random one each time", got.Epoch)
			}
			if got.Now == nil {
				t.Fatal("Now is nil")
			}
			if isClock := got.Now().Equal(clock()); isClock != tt.wantClock {
				t.Errorf("Now is the given clock: %v, want %v", isClock, tt.wantClock)
			}
		})
	}
}

// TestControllerOptionsController: the claim controller has
// MaxConcurrentClaims workers, the pool controller controller-runtime's
// default, and both SkipNameValidation.
func TestControllerOptionsController(t *testing.T) {
	o := ControllerOptions{MaxConcurrentClaims: 5, SkipNameValidation: true}
	if c := o.ClaimController(); c.MaxConcurrentReconciles != 5 || c.SkipNameValidation == nil || !*c.SkipNameValidation {
		t.Errorf("ClaimController = %+v, want 5 workers, SkipNameValidation true", c)
	}
	if c := o.PoolController(); c.MaxConcurrentReconciles != 0 || c.SkipNameValidation == nil || !*c.SkipNameValidation {
		t.Errorf("PoolController = %+v, want the default workers, SkipNameValidation true", c)
	}
}
