package leasestore

import (
	"cmp"
	"net/netip"
	"slices"

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
	from    u128 // the pool's range, inclusive
	to      u128
	blocked []span128 // sorted by lo, merged: no two overlap or touch
	next    int       // the first blocked span that may hold the next address
	prev    u128      // the last address passed in
}

// span128 is an inclusive range of addresses as 128-bit integers.
type span128 struct{ lo, hi u128 }

func newGuard(pool *ipam.Pool, spec ipam.Spec) *guard {
	r := pool.Range()
	g := &guard{is4: spec.Prefix.Addr().Is4(), from: u128Of(r.From()), to: u128Of(r.To())}
	spans := make([]span128, 0, len(spec.Exclude)+len(spec.Reserved))
	for _, x := range spec.Exclude {
		spans = append(spans, span128{u128Of(x.From()), u128Of(x.To())})
	}
	for _, a := range spec.Reserved {
		spans = append(spans, span128{u128Of(a), u128Of(a)})
	}
	slices.SortFunc(spans, func(a, b span128) int {
		return cmp.Or(cmp.Compare(a.lo.hi, b.lo.hi), cmp.Compare(a.lo.lo, b.lo.lo))
	})
	for _, s := range spans {
		if n := len(g.blocked); n > 0 && !g.blocked[n-1].hi.less(s.lo) {
			if g.blocked[n-1].hi.less(s.hi) {
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
func (g *guard) clear(a netip.Addr, x u128) bool {
	if g.is4 {
		if !a.Is4() {
			return false
		}
	} else if !a.Is6() || a.Zone() != "" {
		return false
	}
	if x.less(g.from) || g.to.less(x) {
		return false
	}
	if x.less(g.prev) { // out of order: find the first span not below x again
		g.next, _ = slices.BinarySearchFunc(g.blocked, x, func(s span128, x u128) int {
			if s.hi.less(x) {
				return -1
			}
			return 1
		})
	}
	g.prev = x
	for g.next < len(g.blocked) && g.blocked[g.next].hi.less(x) {
		g.next++
	}
	return g.next == len(g.blocked) || x.less(g.blocked[g.next].lo)
}
