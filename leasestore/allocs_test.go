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
	for _, tc := range []struct{ name, prefix, a5, a6 string }{
		{"IPv4", "10.0.0.0/24", "10.0.0.5", "10.0.0.6"},
		{"IPv6", "fd00:1::/64", "fd00:1::5", "fd00:1::ffff:ffff:ffff:6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readersDoNotAllocate(t, netip.MustParsePrefix(tc.prefix), netip.MustParseAddr(tc.a5), netip.MustParseAddr(tc.a6))
		})
	}
}

func readersDoNotAllocate(t *testing.T, prefix netip.Prefix, a5, a6 netip.Addr) {
	spec := ipam.Spec{Prefix: prefix}
	snap := ipam.Snapshot{Spec: spec, Allocations: []ipam.Allocation{
		{Addr: a5, Owner: "52:54:00:00:00:05"},
		{Addr: a6, Owner: "52:54:00:00:00:06"},
	}}
	s, problems := leasestore.Build(snap, leasestore.Options{})
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	mac := leasestore.MustParseMAC("52:54:00:00:00:06")
	addr := a5
	n := testing.AllocsPerRun(100, func() {
		if _, ok := s.Lookup(mac); !ok {
			t.Fatal("Lookup missed")
		}
		if _, ok := s.LookupAddr(addr); !ok {
			t.Fatal("LookupAddr missed")
		}
		s.Options().Lifetimes()
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
