package leasestore

import (
	"fmt"

	"github.com/vmnetkit/vmnetkit/internal/u128"
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
// more than once (ErrDuplicateAddr), a MAC given more than one address
// (ErrDuplicateMAC).
//
// An address or a MAC given more than once is resolved by one rule, that
// of ipam.Restore, so that the agent serves exactly the allocations of the
// pool restored from the same snapshot with Spec.Owners = ipam.MACOwners:
// the servable allocations are taken in (address, MAC) order; a MAC keeps
// its lowest address, and an address goes to the first MAC, in that order,
// that does not keep a lower address already. An address whose every MAC
// keeps a lower one is served to nobody. Each allocation left out names
// who keeps what: the MAC that holds its address (ErrDuplicateAddr), or
// the address its MAC keeps (ErrDuplicateMAC). Two spellings of one MAC
// are one MAC.
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
//
// Build makes one pass over the snapshot, writing each lease as a 64-bit
// key while the leases pack (see Store), then sorts a copy of the keys by
// MAC; a snapshot in address order (Pool.Snapshot and ipam.ParseAllocated
// return it in order) needs no other sort. It allocates the Store (16 bytes
// a lease packed), plus 8 bytes a lease when the snapshot is out of order.
// Addresses are checked against the pool's range, Exclude and Reserved
// by an ipam.Checker, in step with the snapshot. A snapshot whose leases
// do not pack, or that lists an address or a MAC twice, takes a slower
// path that sorts 22-byte entries and allocates more: measured, about 160 to 180 bytes an allocation for
// 100,000 to 1,000,000 leases, about 300 for 1,000.
func Build(snap ipam.Snapshot, opts Options) (*Store, []Problem) {
	pool, err := ipam.New(snap.Spec)
	if err != nil {
		return &Store{opts: &Options{}}, []Problem{{Err: fmt.Errorf("leasestore: build: %w", err)}}
	}
	prefix := snap.Spec.Prefix
	t := tableBuilder{
		is4:   prefix.Addr().Is4(),
		owner: func(src int32) string { return snap.Allocations[src].Owner },
	}
	clean, optErrs := opts.sanitize(t.is4)
	for _, err := range optErrs {
		t.problems = append(t.problems, Problem{Err: err})
	}

	// keys[n] is the n-th servable allocation as an address table key of
	// pk while inPacked, else its MAC; srcs is nil while every allocation
	// so far is servable: srcs[n] == n.
	keys := make([]uint64, len(snap.Allocations))
	var srcs []int32
	pk, inPacked := packing{base: u128.FromAs16(prefix.Addr())}, true
	var maxOff uint64
	check := pool.Checker()
	n := 0
	sorted, sameHi := true, true
	var prev u128.U128
	macAnd, macOr := ^uint64(0), uint64(0)
	for i := range snap.Allocations {
		a := &snap.Allocations[i]
		mac, err := parseMAC(a.Owner)
		if err != nil {
			t.problems = append(t.problems, Problem{Addr: a.Addr, Owner: a.Owner,
				Err: fmt.Errorf("leasestore: lease %s for %q: %v: %w", a.Addr, a.Owner, err, ErrNotMAC)})
			srcs = identity(srcs, n, len(snap.Allocations))
			continue
		}
		if err := check.Check(a.Addr); err != nil {
			t.problems = append(t.problems, Problem{Addr: a.Addr, Owner: a.Owner,
				Err: fmt.Errorf("leasestore: lease %s for %q: %w", a.Addr, a.Owner, err)})
			srcs = identity(srcs, n, len(snap.Allocations))
			continue
		}
		x := u128.FromAs16(a.Addr)
		k := mac.uint64()
		macAnd &= k
		macOr |= k
		if n == 0 {
			pk, inPacked = newPacking(pk.base, k, k)
		} else {
			sorted = sorted && prev.Less(x)
			sameHi = sameHi && prev.Hi == x.Hi
		}
		prev = x
		if inPacked && !pk.holds(k) && !pk.widen(keys[:n], macAnd, macOr, maxOff) {
			pk.unpack(keys[:n])
			inPacked = false
		}
		if inPacked {
			off, ok := pk.offset(x)
			if ok {
				keys[n] = pk.addrKey(k, off)
				maxOff = max(maxOff, off)
			} else {
				pk.unpack(keys[:n])
				inPacked = false
			}
		}
		if !inPacked {
			keys[n] = k
		}
		if srcs != nil {
			srcs[n] = int32(i)
		}
		n++
	}
	keys = keys[:n]
	if srcs != nil {
		srcs = srcs[:n]
	}

	s := &Store{prefix: prefix, opts: &clean, is4: t.is4}
	if inPacked && n > 0 {
		if byAddr, byMAC, ok := packedTables(&pk, keys, sorted, macAnd^macOr); ok {
			s.t = packedTable(pk, byAddr, byMAC)
			sortProblems(t.problems)
			return s, t.problems
		}
		pk.unpack(keys) // an address or a MAC twice: the wide path reports it
	}
	ents := make([]entry, n)
	for i, k := range keys {
		src := i
		if srcs != nil {
			src = int(srcs[i])
		}
		ents[i] = entry{addr: snap.Allocations[src].Addr.As16(), mac: macFromUint64(k)}
	}
	if srcs == nil && !sorted { // the sort reorders the sources with the entries
		srcs = identity(nil, n, n)
	}
	byAddr, byMAC := t.build(ents, srcs, sorted, sameHi, macAnd^macOr)
	s.t = wideTable(u128.FromAs16(prefix.Addr()), byAddr, byMAC)
	sortProblems(t.problems)
	return s, t.problems
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
