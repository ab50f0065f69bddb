package u128

import (
	"math/bits"
	"net/netip"
)

// U128 is an unsigned 128-bit integer. The zero value is 0. U128 values are
// comparable with ==.
type U128 struct {
	Hi, Lo uint64
}

// Max is 2^128-1.
var Max = U128{^uint64(0), ^uint64(0)}

// From64 returns v as a U128.
func From64(v uint64) U128 { return U128{Lo: v} }

// FromAddr returns a's bits as an integer: an IPv4 address is its 32-bit
// value, an IPv6 address (IPv4-mapped included) its 128-bit value. The zone
// is ignored; the zero Addr is 0.
func FromAddr(a netip.Addr) U128 {
	if a.Is4() {
		b := a.As4()
		return U128{Lo: uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])}
	}
	if !a.IsValid() {
		return U128{}
	}
	return From16(a.As16())
}

// FromAs16 returns a.As16() as an integer: an IPv4 address is its
// IPv4-mapped IPv6 form (::ffff:a.b.c.d, 0xffff<<32 | its 32-bit value), so
// that addresses of both families order as their 16-byte forms do. It is
// FromAddr except for IPv4, and faster for IPv4 than a round trip through
// As16's bytes. The zone is ignored; the zero Addr is 0.
func FromAs16(a netip.Addr) U128 {
	if a.Is4() {
		b := a.As4()
		return U128{Lo: 0xffff<<32 | uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])}
	}
	if !a.IsValid() {
		return U128{}
	}
	return From16(a.As16())
}

// From16 returns the big-endian 16 bytes b as an integer.
func From16(b [16]byte) U128 { return U128{Hi: be64(b[:8]), Lo: be64(b[8:])} }

// As16 returns u as 16 big-endian bytes, the inverse of From16:
// netip.AddrFrom16(u.As16()) is the IPv6 address of u.
func (u U128) As16() [16]byte {
	var b [16]byte
	put64(b[:8], u.Hi)
	put64(b[8:], u.Lo)
	return b
}

// Addr returns u as an IPv4 address (its low 32 bits) when is4, else as an
// IPv6 address.
func (u U128) Addr(is4 bool) netip.Addr {
	if is4 {
		v := uint32(u.Lo)
		return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	}
	return netip.AddrFrom16(u.As16())
}

func be64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

func put64(b []byte, v uint64) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32)
	b[4], b[5], b[6], b[7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

// IsZero reports whether u is 0.
func (u U128) IsZero() bool { return u.Hi == 0 && u.Lo == 0 }

// Add returns u+v, wrapping.
func (u U128) Add(v U128) U128 {
	lo, c := bits.Add64(u.Lo, v.Lo, 0)
	hi, _ := bits.Add64(u.Hi, v.Hi, c)
	return U128{hi, lo}
}

// Add64 returns u+v, wrapping.
func (u U128) Add64(v uint64) U128 {
	lo, c := bits.Add64(u.Lo, v, 0)
	return U128{u.Hi + c, lo}
}

// Sub returns u-v, wrapping.
func (u U128) Sub(v U128) U128 {
	lo, b := bits.Sub64(u.Lo, v.Lo, 0)
	hi, _ := bits.Sub64(u.Hi, v.Hi, b)
	return U128{hi, lo}
}

// Sub64 returns u-v, wrapping.
func (u U128) Sub64(v uint64) U128 {
	lo, b := bits.Sub64(u.Lo, v, 0)
	return U128{u.Hi - b, lo}
}

// Cmp returns -1, 0 or +1 as u is less than, equal to or greater than v.
func (u U128) Cmp(v U128) int {
	switch {
	case u.Hi < v.Hi:
		return -1
	case u.Hi > v.Hi:
		return 1
	case u.Lo < v.Lo:
		return -1
	case u.Lo > v.Lo:
		return 1
	}
	return 0
}

// Less reports whether u < v.
func (u U128) Less(v U128) bool {
	return u.Hi < v.Hi || (u.Hi == v.Hi && u.Lo < v.Lo)
}

// Rsh returns u >> n for n in [0, 127]; larger n give 0.
func (u U128) Rsh(n uint) U128 {
	switch {
	case n == 0:
		return u
	case n < 64:
		return U128{u.Hi >> n, u.Lo>>n | u.Hi<<(64-n)}
	case n < 128:
		return U128{0, u.Hi >> (n - 64)}
	}
	return U128{}
}

// Lsh returns u << n for n in [0, 127]; larger n give 0.
func (u U128) Lsh(n uint) U128 {
	switch {
	case n == 0:
		return u
	case n < 64:
		return U128{u.Hi<<n | u.Lo>>(64-n), u.Lo << n}
	case n < 128:
		return U128{u.Lo << (n - 64), 0}
	}
	return U128{}
}

// Digit returns the 6-bit group of u that starts at bit 6*level, the index
// of u's path at that level of a 64-ary tree.
func (u U128) Digit(level uint) uint {
	n := 6 * level
	switch {
	case n < 58:
		return uint(u.Lo>>n) & 63
	case n < 64: // the group straddles the two words
		return uint(u.Lo>>n|u.Hi<<(64-n)) & 63
	case n < 128:
		return uint(u.Hi>>(n-64)) & 63
	}
	return 0
}

// BitLen returns the number of bits needed to represent u; 0 for 0.
func (u U128) BitLen() int {
	if u.Hi != 0 {
		return 64 + bits.Len64(u.Hi)
	}
	return bits.Len64(u.Lo)
}

// Uint64 returns u if it fits in 64 bits and exact, else 2^64-1 and false.
func (u U128) Uint64() (v uint64, exact bool) {
	if u.Hi != 0 {
		return ^uint64(0), false
	}
	return u.Lo, true
}

// String returns u in decimal.
func (u U128) String() string {
	if u.Hi == 0 {
		return formatUint(u.Lo)
	}
	// Divide by 10^19 (the largest power of ten below 2^64) twice at most.
	const chunk = 10_000_000_000_000_000_000
	var parts [3]uint64
	n := 0
	for v := u; ; n++ {
		if v.Hi == 0 {
			parts[n] = v.Lo
			break
		}
		q1, r1 := v.Hi/chunk, v.Hi%chunk
		q0, r0 := bits.Div64(r1, v.Lo, chunk)
		parts[n] = r0
		v = U128{q1, q0}
	}
	s := formatUint(parts[n])
	for i := n - 1; i >= 0; i-- {
		d := formatUint(parts[i])
		s += "0000000000000000000"[len(d):] + d
	}
	return s
}

func formatUint(v uint64) string {
	var b [20]byte
	i := len(b)
	for v >= 10 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	i--
	b[i] = byte('0' + v)
	return string(b[i:])
}

// Byte returns byte k (0 is the least significant) of u, for k in [0, 15].
func (u U128) Byte(k int) byte {
	if k < 8 {
		return byte(u.Lo >> (8 * k))
	}
	return byte(u.Hi >> (8 * (k - 8)))
}
