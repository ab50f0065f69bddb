package ipam

import (
	"fmt"
	"iter"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
	"github.com/vmnetkit/vmnetkit/internal/u128"
	"go4.org/netipx"
)

// Pool hands out the addresses of a Spec to owners, one address per owner.
// Its memory follows the number of allocations and the number of Exclude
// ranges and Reserved addresses, never the size of the range. A million
// 17-byte owners (their strings included) cost about 82 bytes each when
// Allocate hands them out, in a /12 and in a /64 alike, and when
// AllocateAddr scatters them at random, as static IPv6 interface IDs do,
// about 97 bytes each in a /64 and 100 in ::/0 (measured with Go 1.26).
//
// A Pool is not safe for concurrent use: callers serialize access (an
// adapter holds its lock around each call).
//
// The zero Pool and a nil *Pool hold nothing and never panic: the methods
// that change or check a pool (Allocate, AllocateAddr, Release, Check)
// return an error wrapping ErrInvalidSpec, the readers report nothing
// (Lookup, AddrOf and ReleaseOwner false, Len 0, the zero Stats, Spec,
// Prefix, Range and Snapshot, All no allocation), and Clone returns a new
// zero Pool (nil for nil). Use New or Restore to make a pool.
type Pool struct {
	l      *layout // immutable, shared by clones
	t      tree
	owners ownerIndex
	hint   u128.U128 // Lowest: no free offset below hint
	cursor u128.U128 // Sequential: where the next search starts
}

// New returns an empty pool for spec, or an error wrapping ErrInvalidSpec
// (see Spec.Validate). The pool keeps its own copy of spec's slices.
func New(spec Spec) (*Pool, error) {
	l, err := compile(spec)
	if err != nil {
		return nil, err
	}
	return newPool(l, newOwnerIndex(l.max, 0, 0)), nil
}

// newPool returns a pool of l that holds nothing, with the owner index x
// (empty, or set to the tree's allocations once they are in).
func newPool(l *layout, x ownerIndex) *Pool {
	return &Pool{l: l, t: newTree(l.levels, l.max, l.blocked), owners: x}
}

// made reports whether p was made by New or Restore (or cloned from one).
func (p *Pool) made() bool { return p != nil && p.l != nil }

// Prefix returns the pool's prefix.
func (p *Pool) Prefix() netip.Prefix {
	if !p.made() {
		return netip.Prefix{}
	}
	return p.l.spec.Prefix
}

// Range returns the pool's first and last allocatable addresses: the
// Spec's Start and End, or the prefix's first and last usable addresses.
func (p *Pool) Range() netipx.IPRange {
	if !p.made() {
		return netipx.IPRange{}
	}
	return netipx.IPRangeFrom(p.l.addr(u128.U128{}), p.l.addr(p.l.max))
}

// Spec returns a copy of the pool's Spec.
func (p *Pool) Spec() Spec {
	if !p.made() {
		return Spec{}
	}
	return p.l.spec.clone()
}

// Len returns the number of allocated addresses.
func (p *Pool) Len() int {
	if !p.made() {
		return 0
	}
	return p.owners.len()
}

// ownerOffset returns the offset owner holds, whatever its spelling. It
// does not allocate.
func (p *Pool) ownerOffset(owner string) (u128.U128, bool) {
	if o, ok := p.owners.get(&p.t, owner); ok {
		return o, true
	}
	var buf [17]byte
	if key, ok := p.l.spec.Owners.lookupKey(owner, &buf); ok && string(key) != owner {
		return p.owners.getBytes(&p.t, key)
	}
	return u128.U128{}, false
}

// Check reports whether addr could ever be allocated from p: nil, or an
// error wrapping ErrOutOfRange, ErrExcluded or ErrReserved. It ignores
// current allocations. It allocates only to build an error.
func (p *Pool) Check(addr netip.Addr) error {
	if !p.made() {
		return p.fail("check "+errtext.Quote(addr.String()), nil)
	}
	if _, err := p.l.check(addr); err != nil {
		return p.fail("check "+errtext.Quote(addr.String()), err)
	}
	return nil
}

// fail returns err as "ipam: <op> in <prefix>: <err>". For a pool that New
// or Restore did not make, it says so and wraps ErrInvalidSpec.
func (p *Pool) fail(op string, err error) error {
	if !p.made() {
		return fmt.Errorf("ipam: %s in a pool not made by New or Restore: %w", op, ErrInvalidSpec)
	}
	return fmt.Errorf("ipam: %s in %s: %w", op, p.l.spec.Prefix, err)
}

// Allocate returns the address owner holds, allocating one by the pool's
// Strategy if owner holds none. It returns an error wrapping
// ErrInvalidOwner for an owner the pool's OwnerKind refuses (empty, a
// marker, not valid UTF-8, not a MAC in a MACOwners pool), or ErrExhausted
// when no address is free. Once the pool's maps have grown, it allocates
// memory only to store a new owner.
func (p *Pool) Allocate(owner string) (netip.Addr, error) {
	if !p.made() {
		return netip.Addr{}, p.fail("allocate "+errtext.Quote(owner), nil)
	}
	if o, ok := p.ownerOffset(owner); ok {
		return p.l.addr(o), nil
	}
	given := owner
	owner, err := p.l.spec.Owners.canonical(owner)
	if err != nil {
		return netip.Addr{}, p.fail("allocate "+errtext.Quote(given), err)
	}
	var o u128.U128
	var ok bool
	switch p.l.spec.Strategy {
	case Sequential:
		if o, ok = p.t.nextFree(p.cursor); !ok && !p.cursor.IsZero() {
			o, ok = p.t.nextFree(u128.U128{})
		}
	default:
		if !p.l.max.Less(p.hint) {
			o, ok = p.t.nextFree(p.hint)
		}
	}
	if !ok {
		return netip.Addr{}, p.fail("allocate "+errtext.Quote(given), ErrExhausted)
	}
	p.take(o, owner)
	p.cursor = o.Add64(1)
	if p.l.max.Less(p.cursor) {
		p.cursor = u128.U128{}
	}
	return p.l.addr(o), nil
}

// take allocates the free offset o to owner.
func (p *Pool) take(o u128.U128, owner string) {
	p.t.insert(o, owner, false)
	p.took(o, owner)
}

// took records that the tree now holds o for owner, and moves the index
// entries of the lones the insert made sink (see ownerIndex).
func (p *Pool) took(o u128.U128, owner string) {
	if len(p.t.sunk) > 0 {
		p.owners.sink(&p.t, owner)
	}
	p.owners.set(&p.t, owner, o)
	if o == p.hint {
		p.hint = o.Add64(1)
	}
}

// AllocateAddr allocates addr to owner. It is a no-op if owner already holds
// addr. Otherwise it returns an error wrapping ErrInvalidOwner (see
// Allocate), ErrOutOfRange, ErrExcluded, ErrReserved, ErrInUse (another
// owner holds addr) or ErrOwnerHasAddr (owner holds another address).
func (p *Pool) AllocateAddr(addr netip.Addr, owner string) error {
	fail := func(err error) error {
		return p.fail("allocate "+errtext.Quote(addr.String())+" to "+errtext.Quote(owner), err)
	}
	if !p.made() {
		return fail(nil)
	}
	owner, err := p.l.spec.Owners.canonical(owner)
	if err != nil {
		return fail(err)
	}
	o, err := p.l.check(addr)
	if err != nil {
		return fail(err)
	}
	if held, ok := p.owners.get(&p.t, owner); ok {
		if held == o {
			return nil
		}
		return fail(fmt.Errorf("%s holds %s: %w", errtext.Quote(owner), p.l.addr(held), ErrOwnerHasAddr))
	}
	if other, ok := p.t.insertAddr(o, owner); !ok {
		return fail(fmt.Errorf("held by %s: %w", errtext.Quote(other), ErrInUse))
	}
	p.took(o, owner)
	return nil
}

// Release frees addr and returns the owner that held it. If addr is not
// allocated it returns an error wrapping ErrNotAllocated, and also
// ErrOutOfRange, ErrExcluded or ErrReserved when that is why. It does not
// allocate on success.
func (p *Pool) Release(addr netip.Addr) (owner string, err error) {
	if !p.made() {
		return "", p.fail("release "+errtext.Quote(addr.String()), nil)
	}
	o, err := p.l.check(addr)
	if err != nil {
		return "", p.fail("release "+errtext.Quote(addr.String()), fmt.Errorf("%w: %w", err, ErrNotAllocated))
	}
	owner, ok := p.t.remove(o)
	if !ok {
		return "", p.fail("release "+errtext.Quote(addr.String()), ErrNotAllocated)
	}
	p.forget(o, owner)
	return owner, nil
}

// forget drops the bookkeeping of owner, whose offset o was just freed.
func (p *Pool) forget(o u128.U128, owner string) {
	p.owners.delete(&p.t, owner)
	if o.Less(p.hint) {
		p.hint = o
	}
}

// ReleaseOwner frees the address owner holds, in any spelling its
// OwnerKind accepts, and returns it; ok is false if owner holds none.
func (p *Pool) ReleaseOwner(owner string) (addr netip.Addr, ok bool) {
	if !p.made() {
		return netip.Addr{}, false
	}
	o, ok := p.ownerOffset(owner)
	if !ok {
		return netip.Addr{}, false
	}
	stored, _ := p.t.remove(o)
	p.forget(o, stored)
	return p.l.addr(o), true
}

// Lookup returns the owner of addr; ok is false if addr is not allocated.
// It does not allocate.
func (p *Pool) Lookup(addr netip.Addr) (owner string, ok bool) {
	if !p.made() {
		return "", false
	}
	o, ok := p.l.offset(addr)
	if !ok {
		return "", false
	}
	return p.t.owner(o)
}

// AddrOf returns the address owner holds, in any spelling the pool's
// OwnerKind accepts; ok is false if it holds none. It does not allocate.
func (p *Pool) AddrOf(owner string) (addr netip.Addr, ok bool) {
	if !p.made() {
		return netip.Addr{}, false
	}
	o, ok := p.ownerOffset(owner)
	if !ok {
		return netip.Addr{}, false
	}
	return p.l.addr(o), true
}

// Stats returns the pool's exact counts. It does not allocate.
func (p *Pool) Stats() Stats {
	if !p.made() {
		return Stats{}
	}
	size := p.l.size()
	alloc := u128.From64(uint64(p.owners.len()))
	res := u128.From64(uint64(len(p.l.reserved)))
	return Stats{
		Size:      Count{size},
		Allocated: Count{alloc},
		Excluded:  Count{p.l.excluded},
		Reserved:  Count{res},
		Free:      Count{size.Sub(alloc).Sub(p.l.excluded).Sub(res)},
	}
}

// All returns the allocations in address order. The pool must not change
// during the iteration.
func (p *Pool) All() iter.Seq2[netip.Addr, string] {
	return func(yield func(netip.Addr, string) bool) {
		if !p.made() {
			return
		}
		p.t.each(func(o u128.U128, owner string) bool {
			return yield(p.l.addr(o), owner)
		})
	}
}

// Clone returns an independent copy of p.
func (p *Pool) Clone() *Pool {
	if !p.made() {
		if p == nil {
			return nil
		}
		return &Pool{}
	}
	c := *p
	c.t = p.t.clone()
	c.owners = p.owners.clone()
	return &c
}
