package dhcp4wire

import (
	"bytes"
	"encoding/hex"
	"net"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
)

// captured is a datagram a real client sent, captured on the server's side
// of a veth (AF_PACKET, UDP to port 67) while it got leases from this agent
// (10.20.0.0/24, server 10.20.0.2, the client's MAC 52:54:00:aa:bb:01
// leased 10.20.0.10): the first 44 bytes of the header (op through
// chaddr; sname and file were all zeros), the options after the magic
// cookie up to the end option, and the datagram's length (the rest is
// zero padding).
type captured struct {
	name, header, options string
	length                int
}

var capturedMessages = []captured{
	{"perfdhcp (Kea 2.2) DISCOVER, acting as a relay as it does",
		"0101060100000000000000000000000000000000000000000a14000a525400aabb0100000000000000000000",
		"3501013707011c02030f060c3d0701525400aabb01ff", 262},
	{"udhcpc (busybox 1.35) DISCOVER",
		"010106007f79356d0000000000000000000000000000000000000000525400aabb0100000000000000000000",
		"3501013902024037070103060c0f1c2a3c0c756468637020312e33352e303d0701525400aabb01ff", 300},
	{"udhcpc (busybox 1.35) REQUEST",
		"010106007f79356d0000000000000000000000000000000000000000525400aabb0100000000000000000000",
		"35010332040a14000a36040a1400023902024037070103060c0f1c2a3c0c756468637020312e33352e303d0701525400aabb01ff", 300},
	{"dhclient (ISC 4.4.3) DISCOVER",
		"01010600caa7f6460000000000000000000000000000000000000000525400aabb0100000000000000000000",
		"3501010c02766d370d011c02030f06770c2c2f1a792aff", 300},
	{"dhclient (ISC 4.4.3) REQUEST",
		"01010600caa7f6460000000000000000000000000000000000000000525400aabb0100000000000000000000",
		"35010336040a14000232040a14000a0c02766d370d011c02030f06770c2c2f1a792aff", 300},
	{"dhcpcd 9.4.1 DISCOVER, with a zero-length rapid commit (80)",
		"01010600b90ec0d10000000000000000000000000000000000000000525400aabb0100000000000000000000",
		"350101370e017903060c0f1a1c2133363a3b77390205c03d13ff00aabb010001000132a3c7eb1e063969885b5000740101910101ff", 300},
	{"dhcpcd 9.4.1 REQUEST",
		"01010600b90ec0d10000000000000000000000000000000000000000525400aabb0100000000000000000000",
		"32040a14000a35010336040a140002370e017903060c0f1a1c2133363a3b77390205c03d13ff00aabb010001000132a3c7eb1e063969885b910101ff", 300},
}

func (c captured) wire(t fataler) []byte {
	t.Helper()
	header, err := hex.DecodeString(c.header)
	if err != nil {
		t.Fatal(err)
	}
	options, err := hex.DecodeString(c.options)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, c.length)
	copy(b, header)
	copy(b[fixedLenNoCookie:], magicCookie[:])
	copy(b[fixedLenNoCookie+len(magicCookie):], options)
	return b
}

// withOptions is a BOOTREQUEST header from macA with the magic cookie,
// followed by options exactly as given (no end option added).
func withOptions(options ...byte) []byte {
	b := make([]byte, fixedLenNoCookie, fixedLenNoCookie+len(magicCookie)+len(options))
	b[0], b[1], b[2] = 1, 1, 6
	copy(b[offCHAddr:], []byte{0x52, 0x54, 0x00, 0xaa, 0x00, 0x01})
	b = append(b, magicCookie[:]...)
	return append(b, options...)
}

// withHeader is withOptions(255) with edit applied to its bytes.
func withHeader(edit func(b []byte)) []byte {
	b := withOptions(255)
	edit(b)
	return b
}

// perfdhcpRequest is a REQUEST as perfdhcp sends it after an OFFER, with a
// relay agent information option as a relay adds: options 50, 54, 55, 61
// and 82, the message the agent answers most under load.
func perfdhcpRequest(t fataler) []byte {
	m := msg(t, macA, dhcpv4.MessageTypeRequest,
		dhcpv4.WithGatewayIP(net.IPv4(10, 77, 0, 3).To4()),
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(addrA))),
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(netIP(serverIP))),
		dhcpv4.WithOption(dhcpv4.OptParameterRequestList(
			dhcpv4.OptionSubnetMask, dhcpv4.OptionBroadcastAddress, dhcpv4.OptionTimeOffset,
			dhcpv4.OptionRouter, dhcpv4.OptionDomainName, dhcpv4.OptionDomainNameServer,
			dhcpv4.OptionHostName)),
		dhcpv4.WithOption(dhcpv4.OptClientIdentifier(append([]byte{1}, hw(t, macA)...))),
		dhcpv4.WithOption(dhcpv4.OptRelayAgentInfo(
			dhcpv4.OptGeneric(dhcpv4.AgentCircuitIDSubOption, []byte("ge-0/0/1.0:42")),
			dhcpv4.OptGeneric(dhcpv4.AgentRemoteIDSubOption, []byte("relay-7")))))
	m.HopCount = 1
	return m.ToBytes()
}

// decodeCases are the inputs TestDecodeMessage compares with FromBytes,
// and FuzzDecodeMessage's seeds.
func decodeCases(t fataler) []struct {
	name    string
	in      []byte
	wantErr bool
} {
	t.Helper()
	long := bytes.Repeat([]byte{'x'}, 255)
	cases := []struct {
		name    string
		in      []byte
		wantErr bool
	}{
		{"empty", nil, true},
		{"one byte", []byte{1}, true},
		{"header without the cookie", withOptions()[:fixedLenNoCookie], true},
		{"cookie cut short", withOptions()[:fixedLenNoCookie+3], true},
		{"wrong magic cookie", withHeader(func(b []byte) { b[fixedLenNoCookie+3] = 0x64 }), true},
		{"cookie of zeros", withHeader(func(b []byte) { copy(b[fixedLenNoCookie:], []byte{0, 0, 0, 0}) }), true},
		{"nothing after the cookie", withOptions(), false},
		{"only the end option", withOptions(255), false},
		{"only pad, no end", withOptions(0, 0, 0), true},
		{"pad then end", withOptions(0, 0, 255), false},
		{"an option then no end", withOptions(53, 1, 1), true},
		{"code without a length", withOptions(53), true},
		{"length past the end", withOptions(53, 2, 1), true},
		{"length past the end after an end byte in the value", withOptions(12, 3, 255), true},
		{"end byte inside a value is data", withOptions(12, 1, 255, 255), false},
		{"pad byte inside a value is data", withOptions(12, 2, 0, 0, 255), false},
		{"zero-length option", withOptions(80, 0, 255), false},
		{"zero-length option repeated", withOptions(80, 0, 80, 0, 255), false},
		{"zero-length then data", withOptions(12, 0, 12, 2, 'v', 'm', 255), false},
		{"data then zero-length", withOptions(12, 2, 'v', 'm', 12, 0, 255), false},
		{"repeated option concatenated", withOptions(12, 2, 'v', 'm', 53, 1, 1, 12, 1, '1', 12, 2, '2', '3', 255), false},
		{"255-byte values concatenated (RFC 3396)", withOptions(append(append(append(append([]byte{77, 255}, long...), 77, 255), long...), 77, 1, 'y', 255)...), false},
		{"trailing data after end", withOptions(53, 1, 1, 255, 1, 2, 3, 99, 200), false},
		{"end then an option cut short", withOptions(255, 53, 9), false},
		{"every code but pad and end", everyCode(), false},
		{"hlen 0", withHeader(func(b []byte) { b[2] = 0 }), false},
		{"hlen 16", withHeader(func(b []byte) { b[2] = 16; copy(b[offCHAddr:], "0123456789abcdef") }), false},
		{"hlen 17 is cut to 16", withHeader(func(b []byte) { b[2] = 17; copy(b[offCHAddr:], "0123456789abcdef") }), false},
		{"hlen 255 is cut to 16", withHeader(func(b []byte) { b[2] = 255 }), false},
		{"every header field set", withHeader(func(b []byte) {
			for i := range offSName {
				b[i] = byte(i*7 + 3)
			}
		}), false},
		{"sname and file", withHeader(func(b []byte) {
			copy(b[offSName:], "tftp.lab.example")
			copy(b[offFile:], "pxelinux.0")
		}), false},
		{"sname and file without NUL fill their fields", withHeader(func(b []byte) {
			copy(b[offSName:offFile], strings.Repeat("s", 64))
			copy(b[offFile:fixedLenNoCookie], strings.Repeat("f", 128))
		}), false},
		{"bytes after the NUL in sname and file", withHeader(func(b []byte) {
			copy(b[offSName:], "a\x00b")
			copy(b[offFile:], "\x00file")
		}), false},
		// FromBytes does not act on option overload: option 52 is kept, and
		// file and sname are read as strings up to their first NUL.
		{"overload 1: options in file", withOptions(52, 1, 1, 53, 1, 1, 255), false},
		{"overload 3: options in file and sname", func() []byte {
			b := withOptions(52, 1, 3, 53, 1, 3, 255)
			copy(b[offFile:], []byte{12, 3, 'v', 'm', '1', 255})
			copy(b[offSName:], []byte{15, 3, 'l', 'a', 'b', 0, 255})
			return b
		}(), false},
		{"overload option cut short", withOptions(52, 1), true},
		{"REQUEST with 50, 54, 55, 61, 82", perfdhcpRequest(t), false},
		{"DISCOVER built by the dhcp library", discover(t, macA).ToBytes(), false},
		{"renewing REQUEST", renewing(t, macA, addrA).ToBytes(), false},
		{"DECLINE", decline(t, macA, addrA).ToBytes(), false},
		{"a BOOTREPLY", func() []byte {
			m := msg(t, macA, dhcpv4.MessageTypeOffer, dhcpv4.WithYourIP(netIP(addrA)),
				dhcpv4.WithOption(dhcpv4.OptDNS(netIP(serverIP), net.IPv4(10, 77, 0, 3))))
			m.OpCode = dhcpv4.OpcodeBootReply
			return m.ToBytes()
		}(), false},
		{"a 1,501-byte message", withOptions(append(bytes.Repeat(append([]byte{43, 250}, long[:250]...), 5), 255)...), false},
	}
	for _, c := range capturedMessages {
		cases = append(cases, struct {
			name    string
			in      []byte
			wantErr bool
		}{c.name, c.wire(t), false})
	}
	return cases
}

// everyCode is a message with every option code from 1 to 254 once, each
// value one byte long.
func everyCode() []byte {
	var opts []byte
	for code := 1; code < 255; code++ {
		opts = append(opts, byte(code), 1, byte(code))
	}
	return withOptions(append(opts, 255)...)
}

// messageOptions make cmp.Diff as strict as reflect.DeepEqual: net.IP's
// Equal method would call a 4-byte and a 16-byte address equal, but
// FromBytes's 4-byte form is part of what Decode promises.
var messageOptions = cmp.Options{
	cmp.Transformer("bytes", func(ip net.IP) []byte { return []byte(ip) }),
}

// stale is a message decoded into m before the case's input, so that a
// field Decode forgot to set, or an option it forgot to clear,
// would show in the diff. It has maxReusedOptions options, the most with
// which Decode clears the map rather than replace it, among them
// every code the cases use.
func stale(t fataler) []byte {
	t.Helper()
	codes := []byte{1, 2, 3, 6, 12, 15, 43, 50, 51, 52, 53, 54, 55, 57, 58, 59,
		60, 61, 77, 80, 81, 82, 116, 119, 121, 145, 150, 160, 200, 210, 220, 254}
	if len(codes) != maxReusedOptions {
		t.Fatal("stale: want", maxReusedOptions, "options, have", len(codes))
	}
	var opts []byte
	for _, code := range codes {
		opts = append(opts, code, 2, code, code)
	}
	b := withOptions(append(opts, 255)...)
	for i := range offSName {
		b[i] = 0xee
	}
	copy(b[offSName:], "stale-sname")
	copy(b[offFile:], "stale-file")
	return b
}
