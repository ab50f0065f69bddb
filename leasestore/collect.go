package leasestore

import (
	"fmt"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
	"github.com/vmnetkit/vmnetkit/internal/u128"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// collector gathers the servable allocations of a snapshot in one pass, as
// 64-bit keys: address table keys of pk while every lease so far packs,
// else MACs. Beside the keys it notes what decides the sorts that follow:
// whether the snapshot is in address order, whether its addresses share
// their upper 64 bits, and which MAC bits vary.
type collector struct {
	keys []uint64 // keys[:n] are the servable allocations so far
	srcs []int32  // index-aligned with keys: each one's allocation; nil while srcs[i] == i
	n    int

	base   u128.U128 // the pool prefix's first address
	pk     packing
	packed bool   // keys are address table keys of pk
	maxOff uint64 // the largest offset of a packed key

	sorted, sameHi bool // ascending addresses, all with one upper 64 bits
	prev           u128.U128
	macAnd, macOr  uint64 // the AND and the OR of every MAC
}

// collect returns the servable allocations of allocs: those whose owner
// parses as a MAC and whose address passes check. It reports the others
// to t.
func collect(allocs []ipam.Allocation, check ipam.Checker, base u128.U128, t *tableBuilder) collector {
	c := collector{
		keys: make([]uint64, len(allocs)), base: base, packed: true,
		sorted: true, sameHi: true, macAnd: ^uint64(0),
	}
	for i := range allocs {
		a := &allocs[i]
		mac, err := parseMAC(a.Owner)
		if err != nil {
			t.leaveOut(a, fmt.Errorf("%v: %w", err, ErrNotMAC))
			c.skip(len(allocs))
			continue
		}
		if err := check.Check(a.Addr); err != nil {
			t.leaveOut(a, err)
			c.skip(len(allocs))
			continue
		}
		c.add(i, mac.uint64(), u128.FromAs16(a.Addr))
	}
	c.keys = c.keys[:c.n]
	if c.srcs != nil {
		c.srcs = c.srcs[:c.n]
	}
	return c
}

// leaveOut reports an allocation that cannot be served, and why.
func (t *tableBuilder) leaveOut(a *ipam.Allocation, err error) {
	t.problems = append(t.problems, Problem{Addr: a.Addr, Owner: a.Owner,
		Err: fmt.Errorf("leasestore: lease %s for %s: %w", a.Addr, errtext.Quote(a.Owner), err)})
}

// skip notes an allocation left out: from then on the keys' sources are
// no longer their indexes.
func (c *collector) skip(size int) {
	if c.srcs == nil {
		c.srcs = identity(c.n, size)
	}
}

// identity returns a slice of length size whose first n elements are their
// own index: the sources of the first n keys while no allocation was left
// out.
func identity(n, size int) []int32 {
	srcs := make([]int32, size)
	for i := range n {
		srcs[i] = int32(i)
	}
	return srcs
}

// add collects allocation i, the lease of MAC k at address x, as an
// address table key of pk while the leases pack, widening pk for a MAC
// outside it; else as k. The first lease that does not pack turns the
// keys so far back into MACs for good.
func (c *collector) add(i int, k uint64, x u128.U128) {
	c.macAnd &= k
	c.macOr |= k
	if c.n == 0 {
		c.pk, c.packed = newPacking(c.base, k, k)
	} else {
		c.sorted = c.sorted && c.prev.Less(x)
		c.sameHi = c.sameHi && c.prev.Hi == x.Hi
	}
	c.prev = x
	if c.packed && !c.pk.holds(k) && !c.pk.widen(c.keys[:c.n], c.macAnd, c.macOr, c.maxOff) {
		c.unpack()
	}
	key := k
	if c.packed {
		if off, ok := c.pk.offset(x); ok {
			c.maxOff = max(c.maxOff, off)
			key = c.pk.addrKey(k, off)
		} else {
			c.unpack()
		}
	}
	c.keys[c.n] = key
	if c.srcs != nil {
		c.srcs[c.n] = int32(i)
	}
	c.n++
}

// unpack turns the keys so far into MACs, for the wide layout.
func (c *collector) unpack() {
	c.pk.unpack(c.keys[:c.n])
	c.packed = false
}

// table returns the Store's table of the collected leases of allocs:
// packed when they pack and no address or MAC is listed twice; else wide,
// with t's conflict rule (which reports what it leaves out).
func (c *collector) table(allocs []ipam.Allocation, t *tableBuilder) table {
	vary := c.macAnd ^ c.macOr
	if c.packed && c.n > 0 {
		if byAddr, byMAC, ok := packedTables(&c.pk, c.keys, c.sorted, vary); ok {
			return packedTable(c.pk, byAddr, byMAC)
		}
		c.unpack() // an address or a MAC twice: the wide path reports it
	}
	ents, srcs := c.entries(allocs)
	byAddr, byMAC := t.build(ents, srcs, c.sorted, c.sameHi, vary)
	return wideTable(c.base, byAddr, byMAC)
}

// entries returns the collected leases, whose keys are MACs, as wide
// entries, and their sources: nil when each entry's source is its index
// and the entries are in address order (the sort of an unsorted snapshot
// reorders the sources with the entries).
func (c *collector) entries(allocs []ipam.Allocation) ([]entry, []int32) {
	ents := make([]entry, c.n)
	for i, k := range c.keys {
		src := i
		if c.srcs != nil {
			src = int(c.srcs[i])
		}
		ents[i] = entry{addr: allocs[src].Addr.As16(), mac: macFromUint64(k)}
	}
	if c.srcs == nil && !c.sorted {
		return ents, identity(c.n, c.n)
	}
	return ents, c.srcs
}
