package leasestore

import (
	"fmt"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/ipam"
)

// Build returns the lease table of a pool snapshot, and what it left out.
// It is a pure function: it does no I/O and no name resolution, it does
// not modify snap, and the Store and the problems are the same whatever
// the order of snap.Allocations.
//
// Every allocation whose owner parses as a MAC (ParseMAC: any spelling)
// becomes a lease of its address, with the pool's prefix and one shared
// copy of opts. An allocation that cannot be served is left out and
// reported, never fatal: an owner that is not a MAC (ErrNotMAC), an
// address outside the pool's range, excluded or reserved (ipam.Pool.Check:
// ipam.ErrOutOfRange, ipam.ErrExcluded, ipam.ErrReserved), an address given
// more than once (ErrDuplicateAddr: the lowest MAC keeps it), a MAC given
// more than one address (ErrDuplicateMAC: it keeps the lowest).
//
// Invalid options (see Options.Validate) do not stop the build either:
// each invalid value is dropped from the Store's copy of the options (an
// address or name is removed, a lease time becomes zero, "not set") and
// reported as a pool-wide Problem wrapping ErrInvalidOptions, with the
// zero Addr and an empty Owner.
//
// An invalid snap.Spec yields an empty Store and a single Problem wrapping
// ipam.ErrInvalidSpec: nothing can be checked against it. An agent that
// would rather keep serving its previous table tests for that error.
//
// Problems are sorted by address (pool-wide ones first), owner and text.
// Build allocates the Store (44 bytes a lease), and 4 bytes of scratch per
// allocation when the snapshot has problems or is not in address order
// (Pool.Snapshot and ipam.ParseAllocated return it in order); one out of
// order costs 56 more while it is sorted. Addresses are checked against
// the pool's range, Exclude and Reserved in step with the snapshot, and
// only those that may fail go through ipam.Pool.Check.
func Build(snap ipam.Snapshot, opts Options) (*Store, []Problem) {
	pool, err := ipam.New(snap.Spec)
	if err != nil {
		return &Store{opts: &Options{}}, []Problem{{Err: fmt.Errorf("leasestore: build: %w", err)}}
	}
	prefix := snap.Spec.Prefix
	t := tables{
		is4:   prefix.Addr().Is4(),
		owner: func(src int32) string { return snap.Allocations[src].Owner },
	}
	clean, optErrs := opts.sanitize(t.is4)
	for _, err := range optErrs {
		t.problems = append(t.problems, Problem{Err: err})
	}

	// macs[n] and los[n] are the MAC and the low 64 address bits of the
	// n-th servable allocation, for now; srcs is nil while every allocation
	// so far is servable: srcs[n] == n.
	macs := make([]uint64, len(snap.Allocations))
	los := make([]uint64, len(snap.Allocations))
	var srcs []int32
	g := newGuard(pool, snap.Spec)
	n := 0
	sorted, sameHi := true, true
	var first, prev u128
	macAnd, macOr := ^uint64(0), uint64(0)
	for i, a := range snap.Allocations {
		mac, err := parseMAC(a.Owner)
		if err != nil {
			t.problems = append(t.problems, Problem{Addr: a.Addr, Owner: a.Owner,
				Err: fmt.Errorf("leasestore: lease %s for %q: %v: %w", a.Addr, a.Owner, err, ErrNotMAC)})
			srcs = identity(srcs, n, len(snap.Allocations))
			continue
		}
		x := u128Of(a.Addr)
		if !g.clear(a.Addr, x) {
			if err := pool.Check(a.Addr); err != nil {
				t.problems = append(t.problems, Problem{Addr: a.Addr, Owner: a.Owner,
					Err: fmt.Errorf("leasestore: lease %s for %q: %w", a.Addr, a.Owner, err)})
				srcs = identity(srcs, n, len(snap.Allocations))
				continue
			}
		}
		k := mac.uint64()
		macs[n], los[n] = k, x.lo
		if srcs != nil {
			srcs[n] = int32(i)
		}
		if n == 0 {
			first = x
		} else {
			sorted = sorted && prev.less(x)
			sameHi = sameHi && prev.hi == x.hi
		}
		prev = x
		macAnd &= k
		macOr |= k
		n++
	}
	macs, los = macs[:n], los[:n]
	if srcs != nil {
		srcs = srcs[:n]
	}
	addrOf := func(n int) netip.Addr {
		if srcs != nil {
			return snap.Allocations[srcs[n]].Addr
		}
		return snap.Allocations[n].Addr
	}

	s := &Store{prefix: prefix, opts: &clean, is4: t.is4}
	if n > 0 && sorted {
		if pk, ok := newPacking(first, prev, macAnd, macOr); ok && s.buildPacked(pk, macs, los) {
			sortProblems(t.problems)
			return s, t.problems
		}
	}
	ents := make([]entry, n)
	for i, k := range macs {
		ents[i] = entry{addr: addrOf(i).As16(), mac: macFromUint64(k)}
	}
	if srcs == nil && !sorted { // the sort reorders the sources with the entries
		srcs = identity(nil, n, n)
	}
	s.setTables(t.build(ents, srcs, sorted, sameHi, macAnd^macOr))
	sortProblems(t.problems)
	return s, t.problems
}

// buildPacked makes s the packed table of the servable allocations, given
// in address order as their MACs and the low 64 bits of their addresses,
// and reports whether it could: false when a MAC holds two addresses, which
// the wide path resolves and reports. It keeps macs as the address table
// and los as the MAC table; on failure, macs are as they were.
func (s *Store) buildPacked(pk packing, macs, los []uint64) bool {
	for i, mac := range macs {
		macs[i] = pk.addrKey(mac, los[i]-pk.base.lo) // within 2^64 of base: the borrow cancels
	}
	sortMACKeys(&pk, macs, los)
	for i := 1; i < len(los); i++ {
		if los[i]>>pk.offBits == los[i-1]>>pk.offBits {
			for i, k := range macs {
				macs[i], _ = pk.fromAddrKey(k)
			}
			return false
		}
	}
	s.pk, s.addrKeys, s.macKeys = pk, macs, los
	return true
}

// identity returns srcs, or when it is nil a new slice of length size whose
// first n elements are their own index: the sources of the first n entries
// while no allocation was left out.
func identity(srcs []int32, n, size int) []int32 {
	if srcs != nil {
		return srcs
	}
	srcs = make([]int32, size)
	for i := range n {
		srcs[i] = int32(i)
	}
	return srcs
}
