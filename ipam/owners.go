package ipam

import (
	"hash/maphash"
	"maps"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// ownerIndex maps each owner to its offset. It dominates a large pool's
// memory and the time of a dense fill, so it keys its map by a 64-bit hash
// of the owner, not by the owner string: a slot is 16 bytes (24 for a
// string key), and growing the map rehashes integers instead of reading a
// million owner strings again. The string itself lives once, in the tree's
// leaf: a look-up checks it there. Two owners whose hashes collide (about
// one pool in 10^7 with a million owners) keep the second in a small map
// by string. The seed changes only where entries sit, never a result.
//
// In a range of more than 2^64 addresses an offset is two words, so a slot
// of wide is 24 bytes. An owner whose address is a lone high in the tree
// (tree.hiLone: the address far from any other, as random static IPv6
// interface IDs in ::/0 are) is kept in hi instead, by the high word of its
// offset alone: the tree finds the rest from it and the owner string
// (tree.hiFind). So scattered owners in ::/0 cost a 16-byte slot each, as
// in a /64, not 24. When such a lone sinks below hiLevel, its entry moves
// to wide (sink).
type ownerIndex struct {
	seed   maphash.Seed
	mask   uint64               // all ones; tests narrow it to make owners collide
	narrow map[uint64]uint64    // used unless the range is wide
	wide   map[uint64]u128.U128 // ranges of more than 2^64 addresses
	hi     map[uint64]uint64    // wide ranges: the high word of a lone's offset (see above)
	more   map[string]u128.U128 // owners whose hash another owner holds above
}

// newOwnerIndex returns an index for a range whose last offset is max,
// with room for sizeHint owners (in a wide range, room in wide for
// sizeHint and in hi for hiHint).
func newOwnerIndex(max u128.U128, sizeHint, hiHint int) ownerIndex {
	x := ownerIndex{seed: maphash.MakeSeed(), mask: ^uint64(0)}
	if max.Hi != 0 {
		x.wide = make(map[uint64]u128.U128, sizeHint)
		x.hi = make(map[uint64]uint64, hiHint)
	} else {
		x.narrow = make(map[uint64]uint64, sizeHint)
	}
	return x
}

func (x *ownerIndex) hash(owner string) uint64 { return maphash.String(x.seed, owner) & x.mask }

// primary returns the offset held under hash h by owner, and whether an
// owner holds hash h at all (taken). ok is false when owner is not the one
// that holds it.
func (x *ownerIndex) primary(t *tree, h uint64, owner string) (o u128.U128, ok, taken bool) {
	if x.narrow != nil {
		v, taken := x.narrow[h]
		o = u128.From64(v)
		if !taken {
			return o, false, false
		}
		s, _ := t.owner(o)
		return o, s == owner, true
	}
	if hi, taken := x.hi[h]; taken {
		o, ok = t.hiFind(hi, owner)
		return o, ok, true
	}
	o, taken = x.wide[h]
	if !taken {
		return o, false, false
	}
	s, _ := t.owner(o)
	return o, s == owner, true
}

// setPrimary records that the owner of hash h holds o.
func (x *ownerIndex) setPrimary(t *tree, h uint64, o u128.U128) {
	switch {
	case x.narrow != nil:
		x.narrow[h] = o.Lo
	case t.hiLone(o):
		x.hi[h] = o.Hi
	default:
		x.wide[h] = o
	}
}

func (x *ownerIndex) deletePrimary(h uint64) {
	if x.narrow != nil {
		delete(x.narrow, h)
		return
	}
	delete(x.hi, h)
	delete(x.wide, h)
}

// get returns the offset of owner, which t holds there. It does not
// allocate.
func (x *ownerIndex) get(t *tree, owner string) (u128.U128, bool) {
	o, ok, taken := x.primary(t, x.hash(owner), owner)
	if ok || !taken {
		return o, ok // found, or no owner of this hash at all
	}
	if len(x.more) > 0 {
		o, ok = x.more[owner]
		return o, ok
	}
	return u128.U128{}, false
}

// getBytes is get for an owner held in a byte slice, without converting
// it to a string.
func (x *ownerIndex) getBytes(t *tree, owner []byte) (u128.U128, bool) {
	o, ok, taken := x.primary(t, maphash.Bytes(x.seed, owner)&x.mask, string(owner))
	if ok || !taken {
		return o, ok
	}
	if len(x.more) > 0 {
		o, ok = x.more[string(owner)]
		return o, ok
	}
	return u128.U128{}, false
}

// taken reports whether an owner holds hash h.
func (x *ownerIndex) taken(h uint64) bool {
	if x.narrow != nil {
		_, ok := x.narrow[h]
		return ok
	}
	_, inHi := x.hi[h]
	_, inWide := x.wide[h]
	return inHi || inWide
}

// set records that owner, which holds no offset yet, holds o in t.
func (x *ownerIndex) set(t *tree, owner string, o u128.U128) {
	h := x.hash(owner)
	if !x.taken(h) {
		x.setPrimary(t, h, o)
		return
	}
	if x.more == nil {
		x.more = make(map[string]u128.U128)
	}
	x.more[owner] = o
}

// delete forgets owner, which held o; t no longer holds it.
func (x *ownerIndex) delete(t *tree, owner string) {
	if _, ok := x.more[owner]; ok {
		delete(x.more, owner) // it was a collision's second owner
		return
	}
	h := x.hash(owner)
	x.deletePrimary(h)
	for s, so := range x.more { // rare: promote an owner of the same hash
		if x.hash(s) == h {
			x.setPrimary(t, h, so)
			delete(x.more, s)
			return
		}
	}
}

// sink moves the entries of the owners in t.sunk, lones that moved below
// hiLevel, from hi to wide, except skip's (an owner not in the index yet),
// and empties t.sunk.
func (x *ownerIndex) sink(t *tree, skip string) {
	for _, e := range t.sunk {
		if e.owner == skip {
			continue
		}
		if _, ok := x.more[e.owner]; ok {
			continue // kept with its whole offset
		}
		h := x.hash(e.owner)
		delete(x.hi, h)
		x.wide[h] = e.o
	}
	clear(t.sunk)
	t.sunk = t.sunk[:0]
}

func (x *ownerIndex) len() int {
	return len(x.narrow) + len(x.wide) + len(x.hi) + len(x.more)
}

func (x *ownerIndex) clone() ownerIndex {
	c := *x
	c.narrow, c.wide, c.hi, c.more = maps.Clone(x.narrow), maps.Clone(x.wide), maps.Clone(x.hi), maps.Clone(x.more)
	return c
}
