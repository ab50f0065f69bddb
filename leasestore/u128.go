package leasestore

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
)

// u128 is an address as a 128-bit integer: its 16-byte form, IPv4 mapped
// into IPv6.
type u128 struct{ hi, lo uint64 }

// u128Of returns a as an integer. IPv4 takes its own path: the round
// trip through As16's bytes costs four times as much.
func u128Of(a netip.Addr) u128 {
	if a.Is4() {
		b := a.As4()
		return u128{0, 0xffff<<32 | uint64(binary.BigEndian.Uint32(b[:]))}
	}
	return u128From16(a.As16())
}

func u128From16(b [16]byte) u128 {
	return u128{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

func (a u128) less(b u128) bool { return a.hi < b.hi || a.hi == b.hi && a.lo < b.lo }

func (a u128) sub(b u128) u128 {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	return u128{a.hi - b.hi - borrow, lo}
}

func (a u128) add64(v uint64) u128 {
	lo, carry := bits.Add64(a.lo, v, 0)
	return u128{a.hi + carry, lo}
}

func (a u128) bytes() [16]byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], a.hi)
	binary.BigEndian.PutUint64(b[8:], a.lo)
	return b
}
