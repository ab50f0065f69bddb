package manager

import (
	"flag"
	"fmt"
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

// TestControllerOptionsFlags: -epoch and -concurrent-claims fill in the
// options, and Validate refuses a concurrency that is not positive, for
// every command alike.
func TestControllerOptionsFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    ControllerOptions
		wantErr string
	}{
		{name: "defaults", want: ControllerOptions{MaxConcurrentClaims: DefaultMaxConcurrentClaims}},
		{name: "set", args: []string{"-epoch", "e2", "-concurrent-claims", "3"}, want: ControllerOptions{Epoch: "e2", MaxConcurrentClaims: 3}},
		{name: "zero", args: []string{"-concurrent-claims", "0"}, want: ControllerOptions{}, wantErr: "-concurrent-claims=0: must be positive"},
		{name: "negative", args: []string{"-concurrent-claims=-2"}, want: ControllerOptions{MaxConcurrentClaims: -2}, wantErr: "-concurrent-claims=-2: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			var o ControllerOptions
			o.AddFlags(fs, "claims")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, o, cmpopts.IgnoreFields(ControllerOptions{}, "Now")); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
			err := o.Validate()
			if got := fmt.Sprint(err); (err != nil || tt.wantErr != "") && got != tt.wantErr {
				t.Errorf("Validate() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
