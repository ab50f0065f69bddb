package dhcp4test

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// WithMaxSize sets the client's Maximum DHCP Message Size option.
func WithMaxSize(size uint16) dhcpv4.Modifier {
	return dhcpv4.WithOption(dhcpv4.OptMaxMessageSize(size))
}

// RelayInfo is a relay agent information option value of about n bytes:
// circuit-ID and remote-ID sub-options of 250 bytes each.
func RelayInfo(n int) []byte {
	var b []byte
	for i := 0; len(b) < n; i++ {
		sub := bytes.Repeat([]byte{byte('a' + i%26)}, 250)
		b = append(b, byte(1+i%2), byte(len(sub)))
		b = append(b, sub...)
	}
	return b
}

// WithRawOption appends code with value to the wire form of m, split into
// instances of up to 255 bytes (RFC 3396) as a relay agent writes it, and
// parses the result back: the way a request with an option too long for
// one instance arrives.
func WithRawOption(t testing.TB, m *dhcpv4.DHCPv4, code uint8, value []byte) *dhcpv4.DHCPv4 {
	t.Helper()
	b := m.ToBytes()
	end := bytes.LastIndexByte(b, 255) // the end option; zero padding may follow
	if end < 240 {
		t.Fatalf("no end option in %x", b)
	}
	b = b[:end]
	for v := value; len(v) > 0; {
		n := min(len(v), 255)
		b = append(b, code, byte(n))
		b = append(b, v[:n]...)
		v = v[n:]
	}
	b = append(b, 255)
	got, err := dhcpv4.FromBytes(b)
	if err != nil {
		t.Fatalf("request with %d bytes of option %d: %v", len(value), code, err)
	}
	if !bytes.Equal(got.Options.Get(dhcpv4.GenericOptionCode(code)), value) {
		t.Fatalf("option %d did not survive the round trip", code)
	}
	return got
}

// ClientOptions parses a reply's wire form the way RFC 2131 section 4.1 asks
// of a client: the options field, then, as the option overload option (52)
// says, the file field and the sname field, each of which must end with an
// end option followed only by padding. Instances of one option are
// concatenated in that order (RFC 3396). It also returns the overload value.
func ClientOptions(wire []byte) (map[uint8][]byte, byte, error) {
	const sname, file, cookie = 44, 108, 236
	if len(wire) < 240 || !bytes.Equal(wire[cookie:cookie+4], []byte{99, 130, 83, 99}) {
		return nil, 0, errors.New("no BOOTP header and magic cookie")
	}
	opts := map[uint8][]byte{}
	parse := func(field string, b []byte, mustPad bool) error {
		for i := 0; i < len(b); {
			code := b[i]
			switch code {
			case 0:
				i++
				continue
			case 255:
				if mustPad && len(bytes.Trim(b[i+1:], "\x00")) > 0 {
					return fmt.Errorf("%s: data after the end option", field)
				}
				return nil
			}
			if i+2 > len(b) || i+2+int(b[i+1]) > len(b) {
				return fmt.Errorf("%s: option %d overruns the field", field, code)
			}
			opts[code] = append(opts[code], b[i+2:i+2+int(b[i+1])]...)
			i += 2 + int(b[i+1])
		}
		return fmt.Errorf("%s: no end option", field)
	}
	if err := parse("options", wire[cookie+4:], false); err != nil {
		return nil, 0, err
	}
	var overload byte
	if v, ok := opts[52]; ok {
		if len(v) != 1 || v[0] < 1 || v[0] > 3 {
			return nil, 0, fmt.Errorf("option overload %x", v)
		}
		overload = v[0]
		delete(opts, 52)
	}
	if overload&1 != 0 {
		if err := parse("file", wire[file:file+128], true); err != nil {
			return nil, 0, err
		}
	}
	if overload&2 != 0 {
		if err := parse("sname", wire[sname:sname+64], true); err != nil {
			return nil, 0, err
		}
	}
	return opts, overload, nil
}

// Decline is a DECLINE from mac of addr, naming the lab server.
func Decline(t Fataler, mac string, addr netip.Addr, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
	return Message(t, mac, dhcpv4.MessageTypeDecline, append([]dhcpv4.Modifier{
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(NetIP(ServerIP))),
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(NetIP(addr)))}, mods...)...)
}

// InformView is the ACK to an INFORM from mac at ciaddr: the pool's
// options without the lease times.
func InformView(mac, ciaddr string) View {
	opts := LabOptions("ACK")
	delete(opts, "51 lease time")
	delete(opts, "58 renewal time")
	delete(opts, "59 rebinding time")
	return ReplyView(mac, ciaddr, "0.0.0.0", opts)
}
