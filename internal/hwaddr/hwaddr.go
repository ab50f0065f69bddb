// Package hwaddr parses hardware (MAC) addresses in the spellings that Go
// 1.26's net.ParseMAC accepts (colon, hyphen and dot forms, and bare hex,
// which older Go versions refuse), on every Go version and without
// allocating, for the core packages that take MACs as text: ipam (MACOwners),
// leasestore (its MAC type) and readiness (NIC matching). One parser keeps
// them agreeing on which strings name the same NIC.
package hwaddr

import (
	"errors"
	"fmt"
)

// LengthName describes a hardware address of n bytes that is not a MAC.
func LengthName(n int) string {
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

// errForm is Parse's error for a string that is no attempt at a
// hardware address.
var errForm = errors.New("want xx:xx:xx:xx:xx:xx, xx-xx-xx-xx-xx-xx, xxxx.xxxx.xxxx or xxxxxxxxxxxx")

// Parse decodes a hardware address of any length in colon, hyphen
// or dot form, or as bare hex digits, into dst, returning how many bytes
// it holds (which may exceed len(dst): those are counted, not stored).
// Strings longer than a 20-byte address are rejected before decoding.
func Parse(s string, dst []byte) (int, error) {
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

// AppendColon appends mac in the lowercase colon form, 52:54:00:ab:cd:ef.
func AppendColon(b []byte, mac [6]byte) []byte {
	const hexDigits = "0123456789abcdef"
	for i, x := range mac {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, hexDigits[x>>4], hexDigits[x&0xf])
	}
	return b
}

// Canonical returns s as a lowercase colon-separated 6-byte MAC, and
// whether s is one in a spelling that Parse accepts.
func Canonical(s string) (string, bool) {
	var mac [6]byte
	if n, err := Parse(s, mac[:]); err != nil || n != 6 {
		return "", false
	}
	return string(AppendColon(make([]byte, 0, 17), mac)), true
}
