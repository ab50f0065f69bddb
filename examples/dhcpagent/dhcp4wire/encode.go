package dhcp4wire

import (
	"slices"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// Sizes of the BOOTP message (RFC 951, RFC 2131 section 2).
const (
	fixedLenNoCookie = 236 // op through file
	bootpMinLen      = 300 // the shortest message some relays and clients accept
	OptionRelayInfo  = 82  // RFC 3046 section 2.1: it SHALL come last
)

var magicCookie = [4]byte{99, 130, 83, 99}

// Append appends m's wire form to b: the same bytes as
// m.ToBytes(), which Handle cannot afford per reply (it allocates a
// buffer, a sorted slice of the option codes and the padding). Options
// are in code order, 82 last, each longer than 255 bytes split into
// instances (RFC 3396), then the end option and zero padding up to 300
// bytes. Pad (0) and end (255) in m.Options are left out, as ToBytes
// does. It allocates only if b is too small.
func Append(b []byte, m *dhcpv4.DHCPv4) []byte {
	start := len(b)
	b = slices.Grow(b, bootpMinLen)
	hlen := len(m.ClientHWAddr)
	b = append(b, byte(m.OpCode), byte(m.HWType), byte(hlen), m.HopCount)
	b = append(b, m.TransactionID[:]...)
	b = append(b, byte(m.NumSeconds>>8), byte(m.NumSeconds), byte(m.Flags>>8), byte(m.Flags))
	for _, ip := range [...][]byte{m.ClientIPAddr, m.YourIPAddr, m.ServerIPAddr, m.GatewayIPAddr} {
		b = appendIP4(b, ip)
	}
	b = appendPadded(b, m.ClientHWAddr, 16, 16)
	b = appendPadded(b, m.ServerHostName, 63, 64)
	b = appendPadded(b, m.BootFileName, 127, 128)
	b = append(b, magicCookie[:]...)

	// The codes, sorted without allocating: a reply has a dozen options.
	var codes [256]uint8
	n := 0
	for code := range m.Options {
		if code != 0 && code != 255 {
			codes[n] = code
			n++
		}
	}
	sorted := codes[:n]
	slices.SortFunc(sorted, func(x, y uint8) int { return order(x) - order(y) })
	for _, code := range sorted {
		v := m.Options[code]
		if len(v) == 0 {
			b = append(b, code, 0)
			continue
		}
		for len(v) > 0 {
			k := min(len(v), 255)
			b = append(append(b, code, byte(k)), v[:k]...)
			v = v[k:]
		}
	}
	b = append(b, 255)
	for len(b)-start < bootpMinLen {
		b = append(b, 0)
	}
	return b
}

// order is where an option code goes in a message: 82 after all others.
func order(code uint8) int {
	if code == OptionRelayInfo {
		return 256
	}
	return int(code)
}

// appendIP4 appends the 4 bytes of an IPv4 address in 4- or 16-byte form,
// and zeros for anything else (ToBytes writes zeros for nil).
func appendIP4(b, ip []byte) []byte {
	switch {
	case len(ip) == 4:
		return append(b, ip...)
	case len(ip) == 16 && isV4InV6(ip):
		return append(b, ip[12:]...)
	}
	return append(b, 0, 0, 0, 0)
}

func isV4InV6(ip []byte) bool {
	for _, c := range ip[:10] {
		if c != 0 {
			return false
		}
	}
	return ip[10] == 0xff && ip[11] == 0xff
}

// appendPadded appends at most max bytes of v, then zeros up to size.
func appendPadded[T ~string | ~[]byte](b []byte, v T, max, size int) []byte {
	v = v[:min(len(v), max)]
	b = append(b, v...)
	for range size - len(v) {
		b = append(b, 0)
	}
	return b
}
