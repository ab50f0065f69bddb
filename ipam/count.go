package ipam

import (
	"fmt"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// Count is an exact count of addresses, up to 2^128-1 (more than any
// pool holds: an IPv6 /0 has 2^128-2^32-1 usable addresses). The zero value is 0. Counts are comparable with ==.
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

// maxCountDiv10 is (2^128-1)/10, the largest Count that can take one more
// decimal digit.
var maxCountDiv10 = u128.U128{Hi: 0x1999999999999999, Lo: 0x9999999999999999}

// ParseCount parses s, a decimal number from 0 to 2^128-1 written as
// String writes it: digits only, no sign, no leading zero (but "0").
func ParseCount(s string) (Count, error) {
	var v u128.U128
	fail := func(why string) (Count, error) {
		return Count{}, fmt.Errorf("ipam: ParseCount(%s): %s", errtext.Quote(s), why)
	}
	switch {
	case s == "":
		return fail("empty string")
	case len(s) > 1 && s[0] == '0':
		return fail("leading zero")
	}
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return fail(fmt.Sprintf("unexpected %q at offset %d", s[i], i))
		}
		if maxCountDiv10.Less(v) || (v == maxCountDiv10 && d > 5) {
			return fail("more than 2^128-1")
		}
		v = v.Lsh(3).Add(v.Lsh(1)).Add64(uint64(d))
	}
	return Count{v}, nil
}

// MarshalText implements encoding.TextMarshaler: the decimal String form,
// which JSON holds as a string (a /64's size does not fit a JSON number
// that every reader keeps exactly).
func (c Count) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseCount.
func (c *Count) UnmarshalText(b []byte) error {
	v, err := ParseCount(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Stats are a pool's exact address counts. Size is the number of usable
// addresses in [Start, End]; every one of them is counted in exactly one of
// Allocated, Excluded, Reserved and Free. An address both excluded and
// reserved counts as Reserved. Excluded and Reserved count only addresses
// inside [Start, End].
//
// In JSON, field names are lower-case and counts are decimal strings:
//
//	{"size":"254","allocated":"3","excluded":"10","reserved":"1","free":"240"}
type Stats struct {
	Size      Count `json:"size"`
	Allocated Count `json:"allocated"`
	Excluded  Count `json:"excluded"`
	Reserved  Count `json:"reserved"`
	Free      Count `json:"free"`
}

// String returns the counts as "size 254, allocated 3, excluded 10,
// reserved 1, free 240".
func (s Stats) String() string {
	return fmt.Sprintf("size %v, allocated %v, excluded %v, reserved %v, free %v",
		s.Size, s.Allocated, s.Excluded, s.Reserved, s.Free)
}
