//go:build unix

package measure

import (
	"testing"
	"time"
)

func TestCPUAdvances(t *testing.T) {
	t0, ok := CPU()
	if !ok {
		t.Fatal("CPU: no process CPU time on unix")
	}
	deadline := time.Now().Add(50 * time.Millisecond)
	for x := 0; time.Now().Before(deadline); x++ {
		sink = append(sink[:0], byte(x))
	}
	t1, _ := CPU()
	if t1 <= t0 {
		t.Fatalf("CPU went from %v to %v over 50ms of work", t0, t1)
	}
}
