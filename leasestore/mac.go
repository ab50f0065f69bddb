package leasestore

import (
	"errors"
	"fmt"
	"net"
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
// spellings (those of net.ParseMAC), in any case:
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
		return MAC{}, fmt.Errorf("leasestore: ParseMAC(%q): %v: %w", s, err, ErrNotMAC)
	}
	return m, nil
}

// parseMAC is ParseMAC with the bare reason as its error.
func parseMAC(s string) (MAC, error) {
	var m MAC
	n, err := parseHardware(s, m.b[:])
	if err != nil {
		return MAC{}, err
	}
	if n != 6 {
		return MAC{}, errors.New(lengthName(n))
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
		return MAC{}, fmt.Errorf("leasestore: MACFrom(%q): %s: %w", hw.String(), lengthName(len(hw)), ErrNotMAC)
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

func (m MAC) appendTo(b []byte) []byte {
	const hexDigits = "0123456789abcdef"
	for i, x := range m.b {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, hexDigits[x>>4], hexDigits[x&0xf])
	}
	return b
}

// uint64 returns m as a 48-bit big-endian integer: the order of Compare.
func (m MAC) uint64() uint64 {
	b := m.b
	return uint64(b[0])<<40 | uint64(b[1])<<32 | uint64(b[2])<<24 |
		uint64(b[3])<<16 | uint64(b[4])<<8 | uint64(b[5])
}

// lengthName describes a hardware address of n bytes that is not a MAC.
func lengthName(n int) string {
	switch n {
	case 8:
		return "8-byte EUI-64 address, want 6 bytes"
	case 20:
		return "20-byte InfiniBand address, want 6 bytes"
	}
	return fmt.Sprintf("%d-byte address, want 6 bytes", n)
}

// hexValue maps an ASCII hex digit to its value and anything else to 0xff.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
		t[c-'a'+'A'] = byte(c - 'a' + 10)
	}
	return t
}()

// errForm is parseHardware's error for a string that is no attempt at a
// hardware address.
var errForm = errors.New("want xx:xx:xx:xx:xx:xx, xx-xx-xx-xx-xx-xx, xxxx.xxxx.xxxx or xxxxxxxxxxxx")

// parseHardware decodes a hardware address of any length in colon, hyphen
// or dot form, or as bare hex digits, into dst, returning how many bytes
// it holds (which may exceed len(dst): those are counted, not stored).
// Strings longer than a 20-byte address are rejected before decoding.
func parseHardware(s string, dst []byte) (int, error) {
	const maxLen = 20*3 - 1 // a 20-byte address in colon form
	switch {
	case s == "":
		return 0, errors.New("empty string")
	case len(s) > maxLen:
		return 0, errors.New("too long")
	}
	// Groups of two digits separated by ':' or '-', or of four separated by '.'.
	group, sep := 2, byte(0)
	switch {
	case len(s) > 2 && (s[2] == ':' || s[2] == '-'):
		sep = s[2]
	case len(s) > 4 && s[4] == '.':
		group, sep = 4, '.'
	default: // bare hex digits
		if len(s)%2 != 0 {
			return 0, errForm
		}
		n := 0
		for i := 0; i < len(s); i += 2 {
			hi, lo := hexValue[s[i]], hexValue[s[i+1]]
			if hi|lo == 0xff {
				return 0, errForm
			}
			if n < len(dst) {
				dst[n] = hi<<4 | lo
			}
			n++
		}
		return n, nil
	}
	n := 0
	for i := 0; ; {
		if len(s)-i < group {
			return 0, fmt.Errorf("short group at offset %d", i)
		}
		for j := 0; j < group; j += 2 {
			hi, lo := hexValue[s[i+j]], hexValue[s[i+j+1]]
			if hi|lo == 0xff {
				if i+j == 0 {
					return 0, errForm // not an attempt at a MAC: say what one looks like
				}
				return 0, fmt.Errorf("invalid hex digit at offset %d", i+j)
			}
			if n < len(dst) {
				dst[n] = hi<<4 | lo
			}
			n++
		}
		i += group
		if i == len(s) {
			return n, nil
		}
		if s[i] != sep {
			return 0, fmt.Errorf("unexpected %q at offset %d", s[i], i)
		}
		i++
	}
}
