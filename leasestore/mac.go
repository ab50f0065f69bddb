package leasestore

import (
	"errors"
	"fmt"
	"net"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
	"github.com/vmnetkit/vmnetkit/internal/hwaddr"
)

// MAC is a 6-byte IEEE 802 MAC-48 (Ethernet) hardware address. It is a
// comparable value: use it as a map key or compare it with ==. Every
// spelling that ParseMAC accepts yields the same MAC, so a lookup by the
// address a DHCP packet carries finds the lease whatever spelling the
// snapshot used.
//
// The zero MAC is 00:00:00:00:00:00.
type MAC struct {
	b [6]byte
}

// ErrNotMAC is wrapped by every error of ParseMAC, MACFrom and
// MAC.UnmarshalText, and by a Problem whose owner is not a MAC.
var ErrNotMAC = errors.New("not a 6-byte MAC address")

// ParseMAC parses s as a 6-byte MAC address in one of the common
// spellings (those of Go 1.26's net.ParseMAC), in any case:
//
//	52:54:00:ab:cd:ef   (colons)
//	52-54-00-AB-CD-EF   (hyphens)
//	5254.00ab.cdef      (dots)
//	525400abcdef        (bare)
//
// Each byte is exactly two hex digits and one string uses one separator. A
// well-formed address of another length, such as an 8-byte EUI-64 or a
// 20-byte InfiniBand address, is an error that says so. Every error wraps
// ErrNotMAC. It does not allocate on success.
func ParseMAC(s string) (MAC, error) {
	m, err := parseMAC(s)
	if err != nil {
		return MAC{}, fmt.Errorf("leasestore: ParseMAC(%s): %v: %w", errtext.Quote(s), err, ErrNotMAC)
	}
	return m, nil
}

// parseMAC is ParseMAC with the bare reason as its error.
func parseMAC(s string) (MAC, error) {
	var m MAC
	n, err := hwaddr.Parse(s, m.b[:])
	if err != nil {
		return MAC{}, err
	}
	if n != 6 {
		return MAC{}, errors.New(hwaddr.LengthName(n))
	}
	return m, nil
}

// MustParseMAC is like ParseMAC but panics on an error. It is meant for
// tests and examples with constant input.
func MustParseMAC(s string) MAC {
	m, err := ParseMAC(s)
	if err != nil {
		panic(err)
	}
	return m
}

// MACFrom returns the MAC in hw, which must be 6 bytes long; an 8-byte
// EUI-64 or a 20-byte InfiniBand address is an error that says so and wraps
// ErrNotMAC. It does not keep a reference to hw.
func MACFrom(hw net.HardwareAddr) (MAC, error) {
	if len(hw) != 6 {
		// Its first 32 bytes at most: the reason names its length.
		text := hw[:min(len(hw), 32)].String()
		if len(hw) > 32 {
			text += "…"
		}
		return MAC{}, fmt.Errorf("leasestore: MACFrom(%s): %s: %w", errtext.Quote(text), hwaddr.LengthName(len(hw)), ErrNotMAC)
	}
	var m MAC
	copy(m.b[:], hw)
	return m, nil
}

// String returns m in the lowercase colon form, 52:54:00:ab:cd:ef: the
// form DHCP wire libraries print.
func (m MAC) String() string {
	b := m.appendTo(make([]byte, 0, 17))
	return string(b)
}

// HardwareAddr returns m as a new 6-byte net.HardwareAddr.
func (m MAC) HardwareAddr() net.HardwareAddr {
	return net.HardwareAddr(m.b[:]) // copies: m is a value
}

// Compare returns -1, 0 or +1 as m sorts before, equal to or after o,
// byte by byte. Leases and plans are sorted in this order.
func (m MAC) Compare(o MAC) int {
	a, b := m.uint64(), o.uint64()
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// MarshalText implements encoding.TextMarshaler with the form of String.
func (m MAC) MarshalText() ([]byte, error) {
	return m.appendTo(make([]byte, 0, 17)), nil
}

// AppendText implements encoding.TextAppender: it appends the form of
// String to b, and allocates only if b has no room for its 17 bytes. The
// error is always nil.
func (m MAC) AppendText(b []byte) ([]byte, error) { return m.appendTo(b), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseMAC. On an
// error m is left unchanged.
func (m *MAC) UnmarshalText(text []byte) error {
	v, err := ParseMAC(string(text))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

func (m MAC) appendTo(b []byte) []byte { return hwaddr.AppendColon(b, m.b) }

// uint64 returns m as a 48-bit big-endian integer: the order of Compare.
func (m MAC) uint64() uint64 {
	b := m.b
	return uint64(b[0])<<40 | uint64(b[1])<<32 | uint64(b[2])<<24 |
		uint64(b[3])<<16 | uint64(b[4])<<8 | uint64(b[5])
}

// macFromUint64 is the inverse of MAC.uint64.
func macFromUint64(k uint64) MAC {
	return MAC{b: [6]byte{byte(k >> 40), byte(k >> 32), byte(k >> 24), byte(k >> 16), byte(k >> 8), byte(k)}}
}
