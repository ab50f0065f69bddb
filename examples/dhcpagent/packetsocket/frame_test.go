package packetsocket

import (
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// packet is an IPv6 UDP packet from src to dst carrying payload, with pad
// bytes of link-layer padding after it.
func packet(src, dst netip.AddrPort, payload []byte, pad int) []byte {
	p := make([]byte, ipv6HeaderLen+udpHeaderLen, ipv6HeaderLen+udpHeaderLen+len(payload)+pad)
	p[0] = 0x60
	binary.BigEndian.PutUint16(p[4:], uint16(udpHeaderLen+len(payload)))
	p[6], p[7] = protoUDP, 1
	s, d := src.Addr().As16(), dst.Addr().As16()
	copy(p[8:], s[:])
	copy(p[24:], d[:])
	binary.BigEndian.PutUint16(p[40:], src.Port())
	binary.BigEndian.PutUint16(p[42:], dst.Port())
	binary.BigEndian.PutUint16(p[44:], uint16(udpHeaderLen+len(payload)))
	p = append(p, payload...)
	return append(p, make([]byte, pad)...)
}

func TestParse(t *testing.T) {
	src := netip.MustParseAddrPort("[fe80::1234]:546")
	dst := netip.AddrPortFrom(AllServers, ServerPort)
	good := packet(src, dst, []byte("solicit"), 0)
	for _, tc := range []struct {
		name    string
		p       []byte
		payload string // "" with err
		err     error
	}{
		{"a datagram", good, "solicit", nil},
		{"with Ethernet padding", packet(src, dst, []byte("solicit"), 12), "solicit", nil},
		{"empty payload", packet(src, dst, nil, 0), "", nil},
		{"cut short", good[:len(good)-1], "", errLength},
		{"headers only, cut", good[:45], "", errShort},
		{"not version 6", append([]byte{0x40}, good[1:]...), "", errShort},
		{"not UDP", append(append([]byte(nil), good[:6]...), append([]byte{6}, good[7:]...)...), "", errShort},
		{"UDP length past the IPv6 payload", func() []byte {
			p := append([]byte(nil), good...)
			binary.BigEndian.PutUint16(p[44:], 200)
			return p
		}(), "", errLength},
		{"UDP length below its header", func() []byte {
			p := append([]byte(nil), good...)
			binary.BigEndian.PutUint16(p[44:], 7)
			return p
		}(), "", errLength},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f Frame
			err := parse(&f, tc.p)
			if err != tc.err {
				t.Fatalf("parse: %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.payload, string(f.Payload)); diff != "" {
				t.Errorf("payload (-want +got):\n%s", diff)
			}
			if f.Src != src || f.Dst != AllServers {
				t.Errorf("from %s to %s, want from %s to %s", f.Src, f.Dst, src, AllServers)
			}
		})
	}
}

// FuzzParse: no input makes parse panic, and a payload it returns lies
// within the packet.
func FuzzParse(f *testing.F) {
	f.Add(packet(netip.MustParseAddrPort("[fe80::1]:546"), netip.AddrPortFrom(AllServers, ServerPort), []byte("x"), 3))
	f.Add([]byte{0x60})
	f.Fuzz(func(t *testing.T, p []byte) {
		var fr Frame
		if parse(&fr, p) == nil && len(fr.Payload) > len(p)-ipv6HeaderLen-udpHeaderLen {
			t.Fatalf("payload of %d bytes from a %d-byte packet", len(fr.Payload), len(p))
		}
	})
}
