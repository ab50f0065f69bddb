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
type ownerIndex struct {
	seed   maphash.Seed
	mask   uint64               // all ones; tests narrow it to make owners collide
	narrow map[uint64]uint64    // used unless wide
	wide   map[uint64]u128.U128 // ranges of more than 2^64 addresses
	more   map[string]u128.U128 // owners whose hash another owner holds above
}

func newOwnerIndex(max u128.U128, sizeHint int) ownerIndex {
	x := ownerIndex{seed: maphash.MakeSeed(), mask: ^uint64(0)}
	if max.Hi != 0 {
		x.wide = make(map[uint64]u128.U128, sizeHint)
	} else {
		x.narrow = make(map[uint64]uint64, sizeHint)
	}
	return x
}

func (x *ownerIndex) hash(owner string) uint64 { return maphash.String(x.seed, owner) & x.mask }

// primary returns the offset held under hash h.
func (x *ownerIndex) primary(h uint64) (u128.U128, bool) {
	if x.wide != nil {
		o, ok := x.wide[h]
		return o, ok
	}
	o, ok := x.narrow[h]
	return u128.From64(o), ok
}

func (x *ownerIndex) setPrimary(h uint64, o u128.U128) {
	if x.wide != nil {
		x.wide[h] = o
	} else {
		x.narrow[h] = o.Lo
	}
}

func (x *ownerIndex) deletePrimary(h uint64) {
	if x.wide != nil {
		delete(x.wide, h)
	} else {
		delete(x.narrow, h)
	}
}

// get returns the offset of owner, which t holds there. It does not
// allocate.
func (x *ownerIndex) get(t *tree, owner string) (u128.U128, bool) {
	o, ok := x.primary(x.hash(owner))
	if !ok {
		return u128.U128{}, false // no owner of this hash at all
	}
	if s, _ := t.owner(o); s == owner {
		return o, true
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
	o, ok := x.primary(maphash.Bytes(x.seed, owner) & x.mask)
	if !ok {
		return u128.U128{}, false
	}
	if s, _ := t.owner(o); s == string(owner) {
		return o, true
	}
	if len(x.more) > 0 {
		o, ok = x.more[string(owner)]
		return o, ok
	}
	return u128.U128{}, false
}

// set records that owner, which holds no offset yet, holds o.
func (x *ownerIndex) set(owner string, o u128.U128) {
	h := x.hash(owner)
	if _, taken := x.primary(h); !taken {
		x.setPrimary(h, o)
		return
	}
	if x.more == nil {
		x.more = make(map[string]u128.U128)
	}
	x.more[owner] = o
}

// delete forgets owner, which held o.
func (x *ownerIndex) delete(owner string, o u128.U128) {
	h := x.hash(owner)
	if held, ok := x.primary(h); !ok || held != o {
		delete(x.more, owner) // it was a collision's second owner
		return
	}
	for s, so := range x.more { // rare: promote an owner of the same hash
		if x.hash(s) == h {
			x.setPrimary(h, so)
			delete(x.more, s)
			return
		}
	}
	x.deletePrimary(h)
}

func (x *ownerIndex) len() int {
	if x.wide != nil {
		return len(x.wide) + len(x.more)
	}
	return len(x.narrow) + len(x.more)
}

func (x *ownerIndex) clone() ownerIndex {
	c := *x
	c.narrow, c.wide, c.more = maps.Clone(x.narrow), maps.Clone(x.wide), maps.Clone(x.more)
	return c
}
