package ipam

import "github.com/vmnetkit/vmnetkit/internal/u128"

// Count is an exact count of addresses, up to 2^128-1 (the usable addresses
// of an IPv6 /0). The zero value is 0. Counts are comparable with ==.
type Count struct {
	v u128.U128
}

// CountOf returns n as a Count.
func CountOf(n uint64) Count { return Count{u128.From64(n)} }

// String returns c in decimal.
func (c Count) String() string { return c.v.String() }

// Uint64 returns c and true if c fits in a uint64; otherwise it returns
// 2^64-1 and false.
func (c Count) Uint64() (v uint64, exact bool) { return c.v.Uint64() }

// Cmp returns -1, 0 or +1 as c is less than, equal to or greater than d.
func (c Count) Cmp(d Count) int { return c.v.Cmp(d.v) }

// IsZero reports whether c is 0.
func (c Count) IsZero() bool { return c.v.IsZero() }

// Stats are a pool's exact address counts. Size is the number of usable
// addresses in [Start, End]; every one of them is counted in exactly one of
// Allocated, Excluded, Reserved and Free. An address both excluded and
// reserved counts as Reserved. Excluded and Reserved count only addresses
// inside [Start, End].
type Stats struct {
	Size, Allocated, Excluded, Reserved, Free Count
}
