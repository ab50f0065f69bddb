package ipam

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
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
	if !p.made() {
		return Snapshot{}
	}
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

// collector gathers the entries of a bulk input that a pool of l can
// hold, and the others as problems (unsorted).
type collector struct {
	l         *layout
	entries   []entry
	problems  []Problem
	respelled map[entry][]string // owners given in another spelling; rare
}

func newCollector(l *layout, n int) *collector {
	return &collector{l: l, entries: make([]entry, 0, n)}
}

func (c *collector) bad(a Allocation, err error) {
	c.problems = append(c.problems, Problem{Entry: a.Addr.String(), Addr: a.Addr, Owner: a.Owner, Err: err})
}

// add collects a, or reports why no pool of c.l can hold it.
func (c *collector) add(a Allocation) {
	owner, err := c.l.spec.Owners.canonical(a.Owner)
	if err != nil {
		c.bad(a, err)
		return
	}
	o, err := c.l.check(a.Addr)
	if err != nil {
		c.bad(a, err)
		return
	}
	e := entry{o, owner}
	if owner != a.Owner {
		if c.respelled == nil {
			c.respelled = make(map[entry][]string)
		}
		c.respelled[e] = append(c.respelled[e], a.Owner)
	}
	c.entries = append(c.entries, e)
}

// resolve returns the collected entries a pool keeps, sorted by offset,
// and adds the others to c's problems. The result does not depend on the
// order of the input: entries are considered in (address, owner) order, an
// owner keeps its lowest address and an address goes to the first owner
// that does not keep a lower one. Owners are stored in the form the spec's
// OwnerKind gives them.
func (c *collector) resolve() []entry {
	l, entries, respelled, bad := c.l, c.entries, c.respelled, c.bad
	// given returns the owner of a left-out entry as the input spelled it
	// (of the spellings of one owner on one address, the greatest go first,
	// so the problems do not depend on the input's order).
	given := func(e entry) Allocation {
		a := Allocation{l.addr(e.o), e.owner}
		if s := respelled[e]; len(s) > 0 {
			slices.Sort(s)
			a.Owner, respelled[e] = s[len(s)-1], s[:len(s)-1]
		}
		return a
	}
	sortEntries(entries, l.max.BitLen())
	kept := entries[:0]
	seen := newOwnerSet(len(entries))
	for _, e := range entries {
		if n := len(kept); n > 0 && kept[n-1].o == e.o {
			bad(given(e), fmt.Errorf("held by %s: %w", errtext.Quote(kept[n-1].owner), ErrInUse))
			continue
		}
		if i, dup := seen.add(e.owner, int32(len(kept)), kept); dup {
			bad(given(e), ownerHolds(l, e.owner, kept[i].o))
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

// ownerHolds is the error for an entry whose owner holds offset o already.
func ownerHolds(l *layout, owner string, o u128.U128) error {
	return fmt.Errorf("%s holds %s: %w", errtext.Quote(owner), l.addr(o), ErrOwnerHasAddr)
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
	c := newCollector(l, len(s.Allocations))
	for _, a := range s.Allocations {
		c.add(a)
	}
	p, problems := restore(c)
	sortProblems(problems)
	return p, problems, nil
}

// restore returns the pool of l with the entries c collected, and the
// problems (unsorted).
func restore(c *collector) (*Pool, []Problem) {
	l := c.l
	p := newPool(l, ownerIndex{})
	entries := c.resolve()
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].o.Rsh(6) == entries[i].o.Rsh(6) {
			j++
		}
		p.t.fillLeaf(entries[i:j])
		i = j
	}
	clear(p.t.sunk) // no owner is in the index yet
	p.t.sunk = p.t.sunk[:0]
	hi := 0 // in a wide range, the owners the index keeps by Hi
	if l.max.Hi != 0 {
		for _, e := range entries {
			if p.t.hiLone(e.o) {
				hi++
			}
		}
	}
	p.owners = newOwnerIndex(l.max, len(entries)-hi, hi)
	for _, e := range entries {
		p.owners.set(&p.t, e.owner, e.o)
	}
	if n := len(entries); n > 0 && entries[n-1].o != l.max {
		p.cursor = entries[n-1].o.Add64(1)
	}
	return p, c.problems
}
