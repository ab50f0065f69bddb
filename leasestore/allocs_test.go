package leasestore_test

import (
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The readers their docs say do not allocate: Lookup, LookupAddr, ParseMAC
// on success, and Diff of two tables that do not differ (it allocates only
// the plan, here empty).
func TestReadersDoNotAllocate(t *testing.T) {
	spec := ipam.Spec{Prefix: netip.MustParsePrefix("10.0.0.0/24")}
	snap := ipam.Snapshot{Spec: spec, Allocations: []ipam.Allocation{
		{Addr: netip.MustParseAddr("10.0.0.5"), Owner: "52:54:00:00:00:05"},
		{Addr: netip.MustParseAddr("10.0.0.6"), Owner: "52:54:00:00:00:06"},
	}}
	s, problems := leasestore.Build(snap, leasestore.Options{})
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	mac := leasestore.MustParseMAC("52:54:00:00:00:06")
	addr := netip.MustParseAddr("10.0.0.5")
	n := testing.AllocsPerRun(100, func() {
		if _, ok := s.Lookup(mac); !ok {
			t.Fatal("Lookup missed")
		}
		if _, ok := s.LookupAddr(addr); !ok {
			t.Fatal("LookupAddr missed")
		}
		if _, err := leasestore.ParseMAC("52-54-00-AA-BB-CC"); err != nil {
			t.Fatal(err)
		}
		if !leasestore.Diff(s, s).Empty() {
			t.Fatal("Diff of a table with itself is not empty")
		}
	})
	if n != 0 {
		t.Errorf("readers allocate %v times per run, want 0", n)
	}
}
