package leasestore

import (
	"slices"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// Plan is what an agent does to go from one lease table to another. Each
// list is sorted by MAC and holds a MAC at most once across the three.
// The zero Plan changes nothing.
type Plan struct {
	Add    []Lease  // MACs only the new table serves: their new lease
	Remove []Lease  // MACs only the old table serves: their old lease
	Update []Change // MACs both serve with a different address, prefix or options
}

// Change is a lease that keeps its MAC and changes its address, prefix or
// options.
type Change struct {
	Old, New Lease
}

// Empty reports whether p changes nothing.
func (p Plan) Empty() bool {
	return len(p.Add) == 0 && len(p.Remove) == 0 && len(p.Update) == 0
}

// Diff returns the plan that turns the table old into new: p.Apply(old)
// serves exactly the leases of new, and Diff(s, s) is empty. A MAC that
// moves to another address, or whose prefix or options change, is an
// Update; an address that passes to another MAC is the Remove of the old
// MAC and the Add of the new one. When the options change, every lease
// that both tables serve is an Update. A nil Store is an empty table:
// Diff(nil, s) adds every lease of s.
//
// Diff walks both MAC tables once; it allocates only the plan. Tables of
// one pool whose MACs share a vendor prefix are packed alike, and compare
// as one integer a lease; others are decoded lease by lease.
func Diff(old, new *Store) Plan {
	var p Plan
	na, nb := old.Len(), new.Len()
	same := old != nil && new != nil && old.prefix == new.prefix && old.opts.Equal(new.opts)
	// Packed the same way, equal keys are equal leases.
	sameKeys := same && old.t.keyedAlike(&new.t)
	i, j := 0, 0
	for i < na && j < nb {
		if sameKeys && old.t.sameKey(i, &new.t, j) {
			i++
			j++
			continue
		}
		kx, ax := old.t.macAt(i)
		ky, ay := new.t.macAt(j)
		switch {
		case kx == ky && ax == ay && same:
		case kx == ky:
			p.Update = append(p.Update, Change{Old: old.leaseOf(kx, ax), New: new.leaseOf(ky, ay)})
		case kx < ky:
			p.Remove = append(p.Remove, old.leaseOf(kx, ax))
			i++
			continue
		default:
			p.Add = append(p.Add, new.leaseOf(ky, ay))
			j++
			continue
		}
		i++
		j++
	}
	for ; i < na; i++ {
		p.Remove = append(p.Remove, old.leaseOf(old.t.macAt(i)))
	}
	for ; j < nb; j++ {
		p.Add = append(p.Add, new.leaseOf(new.t.macAt(j)))
	}
	return p
}

// Apply returns the table that results from applying p to old, which it
// does not modify: old's leases, without those whose MAC p removes or
// updates, with the updates' new leases and the additions. For a plan
// made by Diff(old, new), Apply(old) serves exactly the leases of new. A
// nil old is an empty table.
//
// The result shares one prefix and one Options: those of p's first Update
// or, if it has none, its first Add (a nil Options reads as the zero
// Options), or else old's. The prefix is masked (10.0.0.5/24 is served as
// 10.0.0.0/24, the subnet it names): Apply returns no error, and a Lease's
// Prefix says only which subnet its address is in, so the canonical form
// serves the same leases with the same subnet mask, as Build's would. For
// a plan not made by Diff, a lease whose address is not in that prefix is
// left out, and leases that would share a MAC or an address are resolved
// as Build does: in (address, MAC) order, a MAC keeps its lowest address
// and an address goes to the first MAC that does not keep a lower one.
// Whatever the plan, the result holds each MAC and each address once, and
// Lookup and LookupAddr find each of its leases.
func (p Plan) Apply(old *Store) *Store {
	s := &Store{opts: &Options{}}
	if old != nil {
		s.prefix, s.opts = old.prefix, old.opts
	}
	switch {
	case len(p.Update) > 0:
		s.prefix, s.opts = p.Update[0].New.Prefix, p.Update[0].New.Options
	case len(p.Add) > 0:
		s.prefix, s.opts = p.Add[0].Prefix, p.Add[0].Options
	}
	if s.opts == nil {
		s.opts = &Options{}
	}
	// The packing counts offsets from the prefix's first address: from an
	// unmasked one, an address below it would wrap around.
	s.prefix = s.prefix.Masked()
	s.is4 = s.prefix.Addr().Is4()

	gone := make([]MAC, 0, len(p.Remove)+2*len(p.Update))
	for _, l := range p.Remove {
		gone = append(gone, l.MAC)
	}
	for _, c := range p.Update {
		gone = append(gone, c.Old.MAC, c.New.MAC)
	}
	slices.SortFunc(gone, MAC.Compare)

	ents := make([]entry, 0, old.Len()+len(p.Add)+len(p.Update))
	push := func(e entry) {
		ents = append(ents, e)
	}
	pushLease := func(l Lease) {
		if s.prefix.Contains(l.Addr) {
			push(entry{addr: l.Addr.As16(), mac: l.MAC})
		}
	}
	if old != nil {
		keepAll := old.prefix == s.prefix
		g := 0
		for i := range old.Len() {
			k, a := old.t.macAt(i)
			for g < len(gone) && gone[g].uint64() < k {
				g++
			}
			if g < len(gone) && gone[g].uint64() == k {
				continue
			}
			if keepAll {
				push(entry{addr: a.As16(), mac: macFromUint64(k)})
			} else {
				pushLease(old.leaseOf(k, a))
			}
		}
	}
	for _, c := range p.Update {
		pushLease(c.New)
	}
	for _, l := range p.Add {
		pushLease(l)
	}
	sameHi := true
	macAnd, macOr := ^uint64(0), uint64(0)
	for i := range ents {
		sameHi = sameHi && ents[i].hi() == ents[0].hi()
		k := ents[i].mac.uint64()
		macAnd &= k
		macOr |= k
	}
	t := tableBuilder{is4: s.is4}
	byAddr, byMAC := t.build(ents, nil, false, sameHi, macAnd^macOr)
	s.t = wideTable(u128.FromAs16(s.prefix.Addr()), byAddr, byMAC)
	return s
}
