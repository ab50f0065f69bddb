package kubetest

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestInParallel: every index runs once, and the error holds every
// failure.
func TestInParallel(t *testing.T) {
	const n = 1000
	var calls [n]atomic.Int32
	errOdd := errors.New("odd")
	err := InParallel(n, 16, func(i int) error {
		calls[i].Add(1)
		if i%2 == 1 {
			return fmt.Errorf("call %d: %w", i, errOdd)
		}
		return nil
	})
	for i := range calls {
		if c := calls[i].Load(); c != 1 {
			t.Fatalf("f(%d) ran %d times, want 1", i, c)
		}
	}
	var joined interface{ Unwrap() []error }
	if !errors.Is(err, errOdd) || !errors.As(err, &joined) || len(joined.Unwrap()) != n/2 {
		t.Errorf("InParallel = %v, want the %d failures joined", err, n/2)
	}
	if err := InParallel(10, 3, func(int) error { return nil }); err != nil {
		t.Errorf("InParallel with no failure = %v, want nil", err)
	}
}
