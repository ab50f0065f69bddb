package leasestore_test

import (
	"net/netip"
	"slices"

	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// modelTable is the plain reference for Build's table: the allocations
// whose owner parses as a MAC and whose address the pool can hand out
// (usable), taken in (address, MAC) order; an address goes to the first
// MAC that holds no address yet, so a MAC keeps its lowest address
// (ipam.Restore's rule).
func modelTable(allocs []ipam.Allocation, usable func(netip.Addr) bool) map[leasestore.MAC]netip.Addr {
	type servable struct {
		addr netip.Addr
		mac  leasestore.MAC
	}
	var all []servable
	for _, a := range allocs {
		mac, err := leasestore.ParseMAC(a.Owner)
		if err != nil || !usable(a.Addr) {
			continue
		}
		all = append(all, servable{a.Addr, mac})
	}
	slices.SortFunc(all, func(a, b servable) int {
		if c := a.addr.Compare(b.addr); c != 0 {
			return c
		}
		return a.mac.Compare(b.mac)
	})
	table := map[leasestore.MAC]netip.Addr{}
	taken := map[netip.Addr]bool{}
	for _, e := range all {
		if _, keeps := table[e.mac]; keeps || taken[e.addr] {
			continue
		}
		table[e.mac], taken[e.addr] = e.addr, true
	}
	return table
}

// modelPlan is the plain reference for Diff: MACs only in new are added,
// MACs only in old removed, MACs in both with another address, or with
// changed options, updated.
func modelPlan(old, new map[leasestore.MAC]netip.Addr, optionsChanged bool) (add, remove, update []leasestore.MAC) {
	for mac, addr := range new {
		switch was, ok := old[mac]; {
		case !ok:
			add = append(add, mac)
		case was != addr || optionsChanged:
			update = append(update, mac)
		}
	}
	for mac := range old {
		if _, ok := new[mac]; !ok {
			remove = append(remove, mac)
		}
	}
	for _, s := range [][]leasestore.MAC{add, remove, update} {
		slices.SortFunc(s, leasestore.MAC.Compare)
	}
	return add, remove, update
}

// checkStore checks s against the model table: the same leases, each found
// by its MAC and by its address, in address order, none twice.
func checkStore(t interface {
	Helper()
	Fatalf(string, ...any)
}, s *leasestore.Store, want map[leasestore.MAC]netip.Addr, wantOpts *leasestore.Options) {
	t.Helper()
	if s.Len() != len(want) {
		t.Fatalf("Len() = %d, model has %d leases", s.Len(), len(want))
	}
	seen := map[leasestore.MAC]bool{}
	var prev netip.Addr
	n := 0
	for l := range s.All() {
		n++
		if seen[l.MAC] {
			t.Fatalf("MAC %v holds two leases", l.MAC)
		}
		seen[l.MAC] = true
		if n > 1 && !prev.Less(l.Addr) {
			t.Fatalf("All() not in ascending address order: %v after %v", l.Addr, prev)
		}
		prev = l.Addr
		if addr, ok := want[l.MAC]; !ok || addr != l.Addr {
			t.Fatalf("lease %v; model serves %v at %v (%v)", l, l.MAC, addr, ok)
		}
		if wantOpts != nil && !l.Options.Equal(wantOpts) {
			t.Fatalf("lease %v options %+v, want %+v", l, *l.Options, *wantOpts)
		}
	}
	if n != len(want) {
		t.Fatalf("All() yielded %d leases, model has %d", n, len(want))
	}
	for mac, addr := range want {
		if l, ok := s.Lookup(mac); !ok || l.Addr != addr || l.MAC != mac {
			t.Fatalf("Lookup(%v) = %v, %v; want %v", mac, l, ok, addr)
		}
		if l, ok := s.LookupAddr(addr); !ok || l.MAC != mac || l.Addr != addr {
			t.Fatalf("LookupAddr(%v) = %v, %v; want %v", addr, l, ok, mac)
		}
	}
}
