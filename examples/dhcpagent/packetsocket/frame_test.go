package packetsocket

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// packet is an IPv6 UDP packet from src to dst carrying payload, with a
// correct checksum (buildDatagram's), and pad bytes of link-layer padding
// after it.
func packet(src, dst netip.AddrPort, payload []byte, pad int) []byte {
	p := buildDatagram(make([]byte, ipv6HeaderLen+udpHeaderLen+len(payload)), src, dst, payload)
	return append(p, make([]byte, pad)...)
}

// withChecksum is p with its UDP checksum field set to c.
func withChecksum(p []byte, c uint16) []byte {
	p = bytes.Clone(p)
	binary.BigEndian.PutUint16(p[ipv6HeaderLen+6:], c)
	return p
}

func TestParse(t *testing.T) {
	src := netip.MustParseAddrPort("[fe80::1234]:546")
	dst := netip.AddrPortFrom(AllServers, ServerPort)
	good := packet(src, dst, []byte("solicit"), 0)
	sum := binary.BigEndian.Uint16(good[ipv6HeaderLen+6:])
	bad, zero := withChecksum(good, sum^0x0101), withChecksum(good, 0)
	// Trailing bytes inside the IPv6 payload, past the UDP length: not
	// the datagram's, nor covered by its checksum.
	trailing := append(bytes.Clone(good), 0xde, 0xad)
	binary.BigEndian.PutUint16(trailing[4:], uint16(len(trailing)-ipv6HeaderLen))
	for _, tc := range []struct {
		name    string
		p       []byte
		status  uint32 // the frame's tp_status
		payload string // "" with err
		err     error
	}{
		{"a datagram", good, 0, "solicit", nil},
		{"with Ethernet padding", packet(src, dst, []byte("solicit"), 12), 0, "solicit", nil},
		{"empty payload", packet(src, dst, nil, 0), 0, "", nil},
		{"bytes past the UDP length", trailing, 0, "solicit", nil},
		{"cut short", good[:len(good)-1], 0, "", errLength},
		{"headers only, cut", good[:45], 0, "", errShort},
		{"not version 6", append([]byte{0x40}, good[1:]...), 0, "", errShort},
		{"not UDP", append(append([]byte(nil), good[:6]...), append([]byte{6}, good[7:]...)...), 0, "", errShort},
		{"UDP length past the IPv6 payload", func() []byte {
			p := append([]byte(nil), good...)
			binary.BigEndian.PutUint16(p[44:], 200)
			return p
		}(), 0, "", errLength},
		{"UDP length below its header", func() []byte {
			p := append([]byte(nil), good...)
			binary.BigEndian.PutUint16(p[44:], 7)
			return p
		}(), 0, "", errLength},
		{"wrong checksum", bad, 0, "", errChecksum},
		{"zero checksum", zero, 0, "", errChecksum},
		{"0xffff for a checksum that computes to 0", kernelPacket(t, "checksum 0, sent as 0xffff"), 0, "\x07\x12\x34\x56\x00\x01\x00\x0e\x00\x01\x00\x01\x2a\x2b\x2c\x2d\x52\x54\x00\x12\x34\x56\x7f\xc3", nil},
		{"wrong checksum, not computed yet (CSUMNOTREADY)", bad, statusCsumNotReady, "solicit", nil},
		{"zero checksum, not computed yet (CSUMNOTREADY)", zero, statusCsumNotReady, "solicit", nil},
		{"wrong checksum, the device verified it (CSUM_VALID)", bad, statusCsumValid, "solicit", nil},
		{"wrong checksum, other status bits", bad, 0x1 | 0x4, "", errChecksum},
		{"cut short, not computed yet: lengths still checked", good[:len(good)-1], statusCsumNotReady, "", errLength},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f Frame
			err := parse(&f, tc.p, tc.status)
			if err != tc.err {
				t.Fatalf("parse: %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.payload, string(f.Payload)); diff != "" {
				t.Errorf("payload (-want +got):\n%s", diff)
			}
			if tc.name == "0xffff for a checksum that computes to 0" {
				return // the kernel's packet, from elsewhere
			}
			if f.Src != src || f.Dst != AllServers {
				t.Errorf("from %s to %s, want from %s to %s", f.Src, f.Dst, src, AllServers)
			}
		})
	}
}

// TestParseAllocs: parsing and verifying allocate nothing.
func TestParseAllocs(t *testing.T) {
	p := packet(netip.MustParseAddrPort("[fe80::1]:546"), netip.AddrPortFrom(AllServers, ServerPort), make([]byte, 1000), 0)
	var f Frame
	if n := testing.AllocsPerRun(100, func() { parse(&f, p, 0) }); n != 0 {
		t.Errorf("parse allocated %.1f times, want 0", n)
	}
}

// FuzzParse: no packet and status make parse panic; a payload it returns
// lies within the packet; and a datagram it accepts after verifying its
// checksum round-trips through the sender's buildDatagram: rebuilt from
// what parse returned (and the destination port), its UDP header and
// payload are the packet's byte for byte, checksum included (only one
// nonzero value verifies), its addresses too, and parse accepts it again
// with the same result.
func FuzzParse(f *testing.F) {
	src, dst := netip.MustParseAddrPort("[fe80::1]:546"), netip.AddrPortFrom(AllServers, ServerPort)
	good := packet(src, dst, []byte("x"), 3)
	for _, status := range []uint32{0, statusCsumNotReady, statusCsumValid} {
		f.Add(good, status)
		f.Add(withChecksum(good, 0), status)
		f.Add(withChecksum(good, 0x1234), status)
		for _, k := range kernelPackets {
			f.Add(kernelPacket(f, k.name), status)
		}
	}
	f.Add([]byte{0x60}, uint32(0))
	f.Fuzz(func(t *testing.T, p []byte, status uint32) {
		var fr Frame
		if parse(&fr, p, status) != nil {
			return
		}
		if len(fr.Payload) > len(p)-ipv6HeaderLen-udpHeaderLen {
			t.Fatalf("payload of %d bytes from a %d-byte packet", len(fr.Payload), len(p))
		}
		if status&(statusCsumNotReady|statusCsumValid) != 0 {
			return // accepted unverified: nothing to round-trip
		}
		udpLen := udpHeaderLen + len(fr.Payload)
		dstPort := binary.BigEndian.Uint16(p[ipv6HeaderLen+2:])
		var buf [ipv6HeaderLen + udpHeaderLen + 1<<16]byte
		q := buildDatagram(buf[:], fr.Src, netip.AddrPortFrom(fr.Dst, dstPort), fr.Payload)
		if !bytes.Equal(q[ipv6HeaderLen:], p[ipv6HeaderLen:ipv6HeaderLen+udpLen]) || !bytes.Equal(q[8:40], p[8:40]) {
			t.Fatalf("rebuilt:\n%x\nwant, as received:\n%x", q, p[:ipv6HeaderLen+udpLen])
		}
		var again Frame
		if err := parse(&again, q, 0); err != nil || again.Src != fr.Src || again.Dst != fr.Dst || !bytes.Equal(again.Payload, fr.Payload) {
			t.Fatalf("the rebuilt packet parses as %+v, %v; want %+v", again, err, fr)
		}
	})
}
