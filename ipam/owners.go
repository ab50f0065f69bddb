package ipam

import (
	"maps"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// ownerIndex maps each owner to its offset. The maps dominate a large
// pool's memory, so when every offset fits in 64 bits (any IPv4 range, any
// IPv6 range up to 2^64 addresses) the values are 8 bytes, not 16.
type ownerIndex struct {
	narrow map[string]uint64    // used unless wide
	wide   map[string]u128.U128 // ranges of more than 2^64 addresses
}

func newOwnerIndex(max u128.U128, sizeHint int) ownerIndex {
	if max.Hi != 0 {
		return ownerIndex{wide: make(map[string]u128.U128, sizeHint)}
	}
	return ownerIndex{narrow: make(map[string]uint64, sizeHint)}
}

func (x *ownerIndex) get(owner string) (u128.U128, bool) {
	if x.wide != nil {
		o, ok := x.wide[owner]
		return o, ok
	}
	o, ok := x.narrow[owner]
	return u128.From64(o), ok
}

// getBytes is get for a key held in a byte slice, without converting it
// to a string.
func (x *ownerIndex) getBytes(key []byte) (u128.U128, bool) {
	if x.wide != nil {
		o, ok := x.wide[string(key)]
		return o, ok
	}
	o, ok := x.narrow[string(key)]
	return u128.From64(o), ok
}

func (x *ownerIndex) set(owner string, o u128.U128) {
	if x.wide != nil {
		x.wide[owner] = o
		return
	}
	x.narrow[owner] = o.Lo
}

func (x *ownerIndex) delete(owner string) {
	if x.wide != nil {
		delete(x.wide, owner)
		return
	}
	delete(x.narrow, owner)
}

func (x *ownerIndex) len() int {
	if x.wide != nil {
		return len(x.wide)
	}
	return len(x.narrow)
}

func (x *ownerIndex) clone() ownerIndex {
	return ownerIndex{narrow: maps.Clone(x.narrow), wide: maps.Clone(x.wide)}
}
