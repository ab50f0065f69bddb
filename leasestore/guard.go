package leasestore

import (
	"cmp"
	"net/netip"
	"slices"

	"github.com/vmnetkit/vmnetkit/internal/u128"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// guard answers, for most addresses of a snapshot, whether ipam.Pool.Check
// would accept them without calling it: an address of the pool's family
// inside its range and outside every Exclude range and Reserved address
// passes; any other address is left to Check, which also words the
// problem. It walks the blocked ranges in step with the addresses, so an
// address-ordered snapshot costs a comparison or two per address.
type guard struct {
	is4     bool
	from    u128.U128 // the pool's range, inclusive
	to      u128.U128
	blocked []span128 // sorted by lo, merged: no two overlap or touch
	next    int       // the first blocked span that may hold the next address
	prev    u128.U128 // the last address passed in
}

// span128 is an inclusive range of addresses as 128-bit integers.
type span128 struct{ lo, hi u128.U128 }

func newGuard(pool *ipam.Pool, spec ipam.Spec) *guard {
	r := pool.Range()
	g := &guard{is4: spec.Prefix.Addr().Is4(), from: u128.FromAs16(r.From()), to: u128.FromAs16(r.To())}
	spans := make([]span128, 0, len(spec.Exclude)+len(spec.Reserved))
	for _, x := range spec.Exclude {
		spans = append(spans, span128{u128.FromAs16(x.From()), u128.FromAs16(x.To())})
	}
	for _, a := range spec.Reserved {
		spans = append(spans, span128{u128.FromAs16(a), u128.FromAs16(a)})
	}
	slices.SortFunc(spans, func(a, b span128) int {
		return cmp.Or(cmp.Compare(a.lo.Hi, b.lo.Hi), cmp.Compare(a.lo.Lo, b.lo.Lo))
	})
	for _, s := range spans {
		if n := len(g.blocked); n > 0 && !g.blocked[n-1].hi.Less(s.lo) {
			if g.blocked[n-1].hi.Less(s.hi) {
				g.blocked[n-1].hi = s.hi
			}
			continue
		}
		g.blocked = append(g.blocked, s)
	}
	return g
}

// clear reports whether a, whose 16-byte form is x, certainly passes
// Pool.Check; false means "ask Check".
func (g *guard) clear(a netip.Addr, x u128.U128) bool {
	if g.is4 {
		if !a.Is4() {
			return false
		}
	} else if !a.Is6() || a.Zone() != "" {
		return false
	}
	if x.Less(g.from) || g.to.Less(x) {
		return false
	}
	if x.Less(g.prev) { // out of order: find the first span not below x again
		g.next, _ = slices.BinarySearchFunc(g.blocked, x, func(s span128, x u128.U128) int {
			if s.hi.Less(x) {
				return -1
			}
			return 1
		})
	}
	g.prev = x
	for g.next < len(g.blocked) && g.blocked[g.next].hi.Less(x) {
		g.next++
	}
	return g.next == len(g.blocked) || x.Less(g.blocked[g.next].lo)
}
