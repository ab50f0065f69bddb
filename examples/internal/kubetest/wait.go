package kubetest

import (
	"testing"
	"time"
)

// Eventually polls cond until it returns true, failing t with what and
// cond's last message after timeout. It polls every 50ms at first, backing
// off to 1s, so that a long wait does not load the API server it watches.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (ok bool, msg string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		ok, msg := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v, still not %s: %s", timeout, what, msg)
		}
		time.Sleep(wait)
	}
}
