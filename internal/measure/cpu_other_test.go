//go:build !unix

package measure

import "testing"

func TestCPUUnknown(t *testing.T) {
	if d, ok := CPU(); ok || d != 0 {
		t.Fatalf("CPU = %v, %v off unix; want 0, false", d, ok)
	}
}
