package ipam

import (
	"fmt"
	"go4.org/netipx"
	"testing"
)

// TestPruneKeepsBlockedSubtrees: a node that loses its last allocated leaf
// but still has entirely blocked children must stay, or the blocked
// addresses would become free.
func TestPruneKeepsBlockedSubtrees(t *testing.T) {
	// Offsets 64..127 (10.0.0.65-10.0.0.128) are a whole blocked leaf.
	p, err := New(Spec{Prefix: mpp("10.0.0.0/8"), Exclude: []netipx.IPRange{rng("10.0.0.65", "10.0.0.128")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AllocateAddr(mpa("10.0.0.129"), "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Release(mpa("10.0.0.129")); err != nil {
		t.Fatal(err)
	}
	for i := range 70 {
		a, err := p.Allocate(fmt.Sprint("o", i))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Check(a); err != nil {
			t.Fatalf("owner %d got %v: %v", i, a, err)
		}
	}
	if a, _ := p.AddrOf("o69"); a != mpa("10.0.0.134") {
		t.Fatalf("70th address = %v, want 10.0.0.134", a)
	}
}
