package ipam

import (
	"net/netip"
	"slices"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// A Checker checks addresses against a pool's Spec as Pool.Check does, in
// step with them: it walks the pool's blocked ranges (Exclude ranges,
// Reserved addresses and the IPv4-mapped block, merged once by New) beside
// the addresses, so addresses in ascending order, as a Snapshot lists
// them, cost a comparison or two each however many ranges the Spec has,
// where Pool.Check searches them for every address. An address below the
// previous one costs one binary search.
//
// The zero Checker checks against the zero Pool: Check returns the error
// of a pool not made by New or Restore. A Checker is not safe for
// concurrent use (it remembers where it is); the Pool's allocations do not
// matter to it, so it stays valid while they change.
type Checker struct {
	p    *Pool
	l    *layout   // p's, nil for a pool not made by New or Restore
	next int       // the first blocked span that may hold the next offset
	prev u128.U128 // the offset of the previous address
}

// Checker returns a Checker of p's Spec. It does not allocate.
func (p *Pool) Checker() Checker {
	if !p.made() {
		return Checker{p: p}
	}
	return Checker{p: p, l: p.l}
}

// Check returns what Pool.Check returns for addr: nil when addr could be
// allocated from the pool, else an error wrapping ErrOutOfRange,
// ErrExcluded or ErrReserved (ErrInvalidSpec for a pool not made by New or
// Restore). It allocates only to build an error.
//
// Its common case spells out layout.offset rather than calling it, to
// spare a call per address of a snapshot (leasestore.Build checks every
// one).
func (c *Checker) Check(addr netip.Addr) error {
	if l := c.l; l != nil && (l.is4 && addr.Is4() || !l.is4 && addr.Is6() && addr.Zone() == "") {
		o := u128.FromAddr(addr).Sub(l.first)
		if !l.max.Less(o) {
			if o.Less(c.prev) {
				c.seek(o)
			}
			c.prev = o
			for c.next < len(l.blocked) && l.blocked[c.next].hi.Less(o) {
				c.next++
			}
			if c.next == len(l.blocked) || o.Less(l.blocked[c.next].lo) {
				return nil // in [Start, End], outside every blocked span
			}
		}
	}
	return c.p.Check(addr) // the error, worded once
}

// seek moves c back to the first blocked span not below offset o, for an
// address below the previous one.
func (c *Checker) seek(o u128.U128) {
	c.next, _ = slices.BinarySearchFunc(c.l.blocked, o, func(sp span, o u128.U128) int {
		if sp.hi.Less(o) {
			return -1
		}
		return 1
	})
}
