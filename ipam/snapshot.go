package ipam

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// Allocation is one address held by one owner.
type Allocation struct {
	Addr  netip.Addr
	Owner string
}

// Snapshot is a pool's persistent state: its Spec and its allocations in
// address order. Restore rebuilds the pool from it.
type Snapshot struct {
	Spec        Spec
	Allocations []Allocation
}

// Snapshot returns p's state, its allocations sorted by address. The
// Snapshot shares nothing mutable with p.
func (p *Pool) Snapshot() Snapshot {
	allocs := make([]Allocation, 0, p.owners.len())
	p.t.each(func(o u128.U128, owner string) bool {
		allocs = append(allocs, Allocation{p.l.addr(o), owner})
		return true
	})
	return Snapshot{Spec: p.l.spec.clone(), Allocations: allocs}
}

// entry is an allocation in offset space.
type entry struct {
	o     u128.U128
	owner string
}

// resolve checks allocs against l and returns the ones a pool keeps,
// sorted by offset, and the others as problems (unsorted); owners receives
// the kept owners' offsets. The result does not depend on the order of
// allocs: entries are considered in (address, owner) order, an owner keeps
// its lowest address and an address its first owner.
func resolve(l *layout, allocs []Allocation, owners *ownerIndex) ([]entry, []Problem) {
	var problems []Problem
	bad := func(a Allocation, err error) {
		problems = append(problems, Problem{Entry: a.Addr.String(), Addr: a.Addr, Owner: a.Owner, Err: err})
	}
	entries := make([]entry, 0, len(allocs))
	for _, a := range allocs {
		if !validOwner(a.Owner) {
			bad(a, ErrInvalidOwner)
			continue
		}
		o, err := l.check(a.Addr)
		if err != nil {
			bad(a, err)
			continue
		}
		entries = append(entries, entry{o, a.Owner})
	}
	sortEntries(entries, l.max.BitLen())
	kept := entries[:0]
	var dups []entry // owners already seen; rare
	for _, e := range entries {
		if n := len(kept); n > 0 && kept[n-1].o == e.o {
			bad(Allocation{l.addr(e.o), e.owner}, fmt.Errorf("held by %q: %w", kept[n-1].owner, ErrInUse))
			continue
		}
		n := owners.len()
		owners.set(e.owner, e.o) // one map operation per entry: a repeat is fixed below
		if owners.len() == n {
			dups = append(dups, e)
			continue
		}
		kept = append(kept, e)
	}
	if len(dups) > 0 {
		first := make(map[string]u128.U128, len(dups))
		for _, e := range dups {
			first[e.owner] = u128.U128{}
		}
		for _, e := range kept {
			if _, ok := first[e.owner]; ok {
				first[e.owner] = e.o
				owners.set(e.owner, e.o)
			}
		}
		for _, e := range dups {
			bad(Allocation{l.addr(e.o), e.owner}, fmt.Errorf("%q holds %s: %w", e.owner, l.addr(first[e.owner]), ErrOwnerHasAddr))
		}
	}
	return kept, problems
}

// Restore returns the pool that s describes. Whatever the order of
// s.Allocations, the pool is the same. An allocation that cannot be kept
// (outside the range, excluded, reserved, an invalid owner, an address
// given twice, an owner given twice: it keeps its lowest address) is left
// out and reported as a Problem; problems are sorted by address. The error
// is non-nil only for an invalid Spec (it wraps ErrInvalidSpec).
//
// A Sequential pool resumes after its highest allocated address.
func Restore(s Snapshot) (*Pool, []Problem, error) {
	l, err := compile(s.Spec)
	if err != nil {
		return nil, nil, err
	}
	p := newPool(l, len(s.Allocations))
	entries, problems := resolve(l, s.Allocations, &p.owners)
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].o.Rsh(6) == entries[i].o.Rsh(6) {
			j++
		}
		p.t.fillLeaf(entries[i:j])
		i = j
	}
	if n := len(entries); n > 0 && entries[n-1].o != l.max {
		p.cursor = entries[n-1].o.Add64(1)
	}
	sortProblems(problems)
	return p, problems, nil
}

// ParseAllocated reads the status-map form of a pool's allocations, address
// to owner, where the markers MarkerExcluded and MarkerReserved stand for an
// address the spec excludes or reserves:
//
//	{"10.0.0.5": "52:54:00:aa:bb:cc", "10.0.0.1": "RESERVED", "10.0.0.9": "EXCLUDED"}
//
// It returns the snapshot of the allocations a pool for spec keeps (as
// Restore would) and, sorted, the entries it left out: a key that does not
// parse or is not in canonical form ("010.0.0.1", " 10.0.0.1", a zone:
// ErrInvalidAddr), an empty owner (ErrInvalidOwner), a marker the spec does
// not back (ErrMarker), an owner on an address outside the range, excluded
// or reserved, and the duplicates Restore reports. Markers are not
// allocations; an excluded or reserved address the map omits is fine. If
// spec is invalid, every entry is a Problem wrapping ErrInvalidSpec. m is not
// modified.
func ParseAllocated(spec Spec, m map[string]string) (Snapshot, []Problem) {
	snap := Snapshot{Spec: spec.clone()}
	l, specErr := compile(spec)
	var problems []Problem
	allocs := make([]Allocation, 0, len(m))
	for key, owner := range m {
		addr, err := netip.ParseAddr(key)
		switch {
		case err != nil:
			err = fmt.Errorf("%w: %w", err, ErrInvalidAddr)
		case addr.Zone() != "":
			err = fmt.Errorf("has a zone: %w", ErrInvalidAddr)
		case addr.String() != key:
			err = fmt.Errorf("not canonical (want %q): %w", addr.String(), ErrInvalidAddr)
		case specErr != nil:
			err = specErr
		case owner == MarkerExcluded:
			if !l.excludes(addr) {
				err = fmt.Errorf("spec does not exclude %s: %w", addr, ErrMarker)
			}
		case owner == MarkerReserved:
			if !l.reserves(addr) {
				err = fmt.Errorf("spec does not reserve %s: %w", addr, ErrMarker)
			}
		default:
			allocs = append(allocs, Allocation{addr, owner})
		}
		if err != nil {
			problems = append(problems, Problem{Entry: key, Addr: addr, Owner: owner, Err: err})
		}
	}
	if specErr == nil {
		owners := newOwnerIndex(l.max, len(allocs))
		entries, more := resolve(l, allocs, &owners)
		problems = append(problems, more...)
		snap.Allocations = make([]Allocation, len(entries))
		for i, e := range entries {
			snap.Allocations[i] = Allocation{l.addr(e.o), e.owner}
		}
	}
	sortProblems(problems)
	return snap, problems
}

// excludes reports whether one of the spec's Exclude ranges holds a.
func (l *layout) excludes(a netip.Addr) bool {
	if o, ok := l.offset(a); ok {
		return l.inExclude(o) // the clipped ranges are exact inside [Start, End]
	}
	for _, r := range l.spec.Exclude {
		if r.Contains(a) {
			return true
		}
	}
	return false
}

// reserves reports whether a is one of the spec's Reserved addresses.
func (l *layout) reserves(a netip.Addr) bool {
	if o, ok := l.offset(a); ok {
		return l.inReserved(o)
	}
	return slices.Contains(l.spec.Reserved, a)
}
