package kube_test

import (
	"regexp"
	"testing"

	"github.com/vmnetkit/vmnetkit/kube"
)

func TestNewEpoch(t *testing.T) {
	format := regexp.MustCompile(`^[0-9a-f]{16}$`)
	const n = 10000
	seen := make(map[string]bool, n)
	for range n {
		e := kube.NewEpoch()
		if !format.MatchString(e) {
			t.Fatalf("NewEpoch() = %q, want 16 lowercase hex digits", e)
		}
		if seen[e] {
			t.Fatalf("NewEpoch() returned %q twice in %d calls", e, len(seen)+1)
		}
		seen[e] = true
	}
}
