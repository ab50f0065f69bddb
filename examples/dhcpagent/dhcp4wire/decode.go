package dhcp4wire

import (
	"bytes"
	"errors"
	"net"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
)

// Reasons Decode rejects a datagram. They are plain values, not
// formatted per message, so that a flood of garbage costs no allocation
// either.
var (
	errShortHeader  = errors.New("malformed DHCP packet: shorter than the 236-byte header and the magic cookie")
	errMagicCookie  = errors.New("malformed DHCP packet: wrong magic cookie")
	errShortOption  = errors.New("error collecting options: option longer than the rest of the packet")
	errNoEndOption  = errors.New("error collecting options: no end option")
	errOptionLength = errors.New("error collecting options: option code without a length")
)

// maxReusedOptions is the most options a message may have held for
// Decode to clear and reuse its map. A map keeps the room it grew
// to, and clearing costs that room: once a message with every option code
// has been decoded into m, clearing its map would double the cost of every
// message after it. Real clients send about ten options.
const maxReusedOptions = 32

// Offsets in the fixed BOOTP header (RFC 2131 section 2).
const (
	offCIAddr = 12
	offCHAddr = 28
	offSName  = 44
	offFile   = 108
)

// Decode fills m with the DHCPv4 message in b, as dhcpv4.FromBytes(b)
// would return it (equal under reflect.DeepEqual and cmp.Diff), and fails
// exactly when FromBytes fails, though with its own error text. On error, m
// holds a partial message and must not be used.
//
// Unlike FromBytes it reuses m and copies no byte slice: each of m's
// byte slices (the four IP addresses, ClientHWAddr, the option values)
// ALIASES b, so m is valid only while b is unchanged; a caller that keeps
// any part of m past the next read into b must copy it. The aliases are capped at their
// length, so appending to one never writes into b. m.Options is cleared
// and refilled, and allocated only when nil or when it held more than
// maxReusedOptions options. ServerHostName and BootFileName are the only
// copies: an empty one, or one equal to the one m already holds, is not
// allocated. An option that appears more than once is concatenated in
// order (RFC 3396), as FromBytes does, and that concatenation is
// allocated. So a steady stream of messages with at most maxReusedOptions
// options and none repeated, decoded into one reused m, allocates nothing.
//
// The rules are FromBytes's own (github.com/insomniacslk/dhcp at the
// version in go.mod): at least 240 bytes; the magic cookie; then options,
// where pad (0) is skipped, an option is a code, a length and that many
// bytes, and the end option (255) is required unless no byte follows the
// cookie at all; whatever follows the end option is ignored. A
// zero-length option is present with a nil value. Option overload (52) is
// not acted on: it is kept as an option like any other, and sname and file
// are read as NUL-terminated strings whatever they hold, as FromBytes
// reads them.
func Decode(m *dhcpv4.DHCPv4, b []byte) error {
	if len(b) < fixedLenNoCookie+len(magicCookie) {
		return errShortHeader
	}
	if [4]byte(b[fixedLenNoCookie:]) != magicCookie {
		return errMagicCookie
	}
	m.OpCode = dhcpv4.OpcodeType(b[0])
	m.HWType = iana.HWType(b[1])
	m.HopCount = b[3]
	m.TransactionID = dhcpv4.TransactionID(b[4:8])
	m.NumSeconds = uint16(b[8])<<8 | uint16(b[9])
	m.Flags = uint16(b[10])<<8 | uint16(b[11])
	m.ClientIPAddr = ip4At(b, offCIAddr)
	m.YourIPAddr = ip4At(b, offCIAddr+4)
	m.ServerIPAddr = ip4At(b, offCIAddr+8)
	m.GatewayIPAddr = ip4At(b, offCIAddr+12)
	// FromBytes always reads 16 bytes and keeps the first hlen, at most 16.
	hlen := offCHAddr + min(int(b[2]), 16)
	m.ClientHWAddr = net.HardwareAddr(b[offCHAddr:hlen:hlen])
	m.ServerHostName = cString(m.ServerHostName, b[offSName:offFile])
	m.BootFileName = cString(m.BootFileName, b[offFile:fixedLenNoCookie])

	if m.Options == nil || len(m.Options) > maxReusedOptions {
		m.Options = make(dhcpv4.Options)
	} else {
		clear(m.Options)
	}
	return decodeOptions(m.Options, b[fixedLenNoCookie+len(magicCookie):])
}

// decodeOptions adds the options in b to o, as Options.fromBytesCheckEnd
// in the dhcp library does with checkEndOption set.
func decodeOptions(o dhcpv4.Options, b []byte) error {
	if len(b) == 0 {
		// FromBytes accepts a message that ends right after the cookie.
		return nil
	}
	for i := 0; i < len(b); {
		code := b[i]
		i++
		switch code {
		case 0: // pad
			continue
		case 255: // end: whatever follows is ignored
			return nil
		}
		if i == len(b) {
			return errOptionLength
		}
		n := int(b[i])
		i++
		if n > len(b)-i {
			return errShortOption
		}
		v := b[i : i+n : i+n]
		i += n
		old := o[code]
		switch {
		case len(old) == 0 && n == 0:
			// FromBytes appends nothing to nil: present, with a nil value.
			o[code] = old
		case len(old) == 0:
			o[code] = v
		case n > 0:
			// A repeated option (RFC 3396). old's capacity is its length
			// when it aliases b, so append copies rather than writes into b.
			o[code] = append(old, v...)
		}
	}
	return errNoEndOption
}

// ip4At is the 4-byte address at b[i:], aliasing b, as FromBytes gives it
// (4-byte form, never nil).
func ip4At(b []byte, i int) net.IP {
	return net.IP(b[i : i+4 : i+4])
}

// cString is the NUL-terminated string in field, or all of it when it has
// no NUL, as FromBytes reads sname and file. It returns old, not a new
// copy, when old already holds it: the comparison does not allocate.
func cString(old string, field []byte) string {
	if i := bytes.IndexByte(field, 0); i >= 0 {
		field = field[:i]
	}
	if string(field) == old {
		return old
	}
	return string(field)
}
