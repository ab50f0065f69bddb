package packetsocket

import (
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Packets Linux 6.18 checksummed itself: sent from a UDP socket
// [fe80::1234:5678:9abc:def0]:547 to [fe80::5054:ff:fe12:3456]:546 through
// a tun device, which offers no checksum offload, so the kernel computed
// each checksum in software; read from the tun. Their flow label is the
// kernel's (0x4827e), their hop limit 64.
var kernelPackets = []struct{ name, hex string }{
	// 22 bytes of payload: checksum 0x7fc7.
	{"even length", "6004827e001e1140fe80000000000000123456789abcdef0fe80000000000000505400fffe123456" +
		"02230222001e7fc7" + "071234560001000e000100012a2b2c2d525400123456"},
	// 11 bytes of payload, the last byte padded (RFC 1071): 0x118e.
	{"odd length", "6004827e00131140fe80000000000000123456789abcdef0fe80000000000000505400fffe123456" +
		"022302220013118e" + "01abcdef736f6c69636974"},
	// A payload whose last two bytes make the sum 0xffff: the checksum
	// computes to 0, and goes out as 0xffff.
	{"checksum 0, sent as 0xffff", "6004827e00201140fe80000000000000123456789abcdef0fe80000000000000505400fffe123456" +
		"02230222" + "0020ffff" + "071234560001000e000100012a2b2c2d5254001234567fc3"},
}

// kernelPacket is the bytes of the kernel packet called name.
func kernelPacket(t testing.TB, name string) []byte {
	t.Helper()
	for _, k := range kernelPackets {
		if k.name == name {
			p, err := hex.DecodeString(k.hex)
			if err != nil {
				t.Fatalf("kernel packet %q: %v", name, err)
			}
			return p
		}
	}
	t.Fatalf("no kernel packet %q", name)
	return nil
}

// TestSum16 is RFC 1071's example (section 3): the sum of 00 01 f2 03 f4
// f5 f6 f7 folds to dd f2.
func TestSum16(t *testing.T) {
	acc := sum16([]byte{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7}, 0)
	for acc > 0xffff {
		acc = acc>>16 + acc&0xffff
	}
	if acc != 0xddf2 {
		t.Errorf("sum: %#x, want 0xddf2", acc)
	}
}

// TestUDPChecksum: over the kernel's packets, with the checksum field
// zeroed, udpChecksum is the kernel's checksum (0 where the kernel sent
// its other form, 0xffff); over the packets as they are, 0; and over a
// packet damaged anywhere the checksum covers (payload, header, either
// address of the pseudo-header), or with the checksum zeroed, not 0.
func TestUDPChecksum(t *testing.T) {
	flip := func(name string, i int) []byte {
		p := kernelPacket(t, name)
		p[i] ^= 0x10
		return p
	}
	zero := func(name string) []byte {
		p := kernelPacket(t, name)
		p[ipv6HeaderLen+6], p[ipv6HeaderLen+7] = 0, 0
		return p
	}
	for _, tc := range []struct {
		name   string
		p      []byte
		intact bool
	}{
		{"even length", kernelPacket(t, "even length"), true},
		{"odd length", kernelPacket(t, "odd length"), true},
		{"checksum 0, sent as 0xffff", kernelPacket(t, "checksum 0, sent as 0xffff"), true},
		{"a payload bit flipped", flip("even length", 60), false},
		{"the odd last byte flipped", flip("odd length", 58), false},
		{"the destination port flipped", flip("even length", 43), false},
		{"the source address flipped", flip("even length", 20), false},
		{"the destination address flipped", flip("odd length", 39), false},
		{"checksum zeroed", zero("even length"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := udpChecksum(tc.p[8:24], tc.p[24:40], tc.p[ipv6HeaderLen:])
			if intact := got == 0; intact != tc.intact {
				t.Errorf("checksum over the packet: %#04x, want intact %v", got, tc.intact)
			}
		})
	}
	for _, k := range kernelPackets {
		t.Run("fill "+k.name, func(t *testing.T) {
			p := kernelPacket(t, k.name)
			want := binary.BigEndian.Uint16(p[ipv6HeaderLen+6:])
			if want == 0xffff {
				want = 0
			}
			p[ipv6HeaderLen+6], p[ipv6HeaderLen+7] = 0, 0
			if got := udpChecksum(p[8:24], p[24:40], p[ipv6HeaderLen:]); got != want {
				t.Errorf("checksum to fill in: %#04x, want the kernel's %#04x", got, want)
			}
		})
	}
}

// TestBuildDatagram: the sender's packets are the kernel's, byte for byte,
// but for the flow label (the kernel's is a hash of the flow; ours 0).
func TestBuildDatagram(t *testing.T) {
	src := netip.MustParseAddrPort("[fe80::1234:5678:9abc:def0]:547")
	dst := netip.MustParseAddrPort("[fe80::5054:ff:fe12:3456%eth0]:546") // the zone is ignored
	for _, k := range kernelPackets {
		t.Run(k.name, func(t *testing.T) {
			want := kernelPacket(t, k.name)
			want[1], want[2], want[3] = 0, 0, 0
			var buf [ethernetMTU]byte
			got := buildDatagram(buf[:], src, dst, want[ipv6HeaderLen+udpHeaderLen:])
			if diff := cmp.Diff(hex.EncodeToString(want), hex.EncodeToString(got)); diff != "" {
				t.Errorf("packet (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildDatagramAllocs: building allocates nothing.
func TestBuildDatagramAllocs(t *testing.T) {
	var buf [ethernetMTU]byte
	payload := make([]byte, maxPayload)
	src, dst := netip.MustParseAddrPort("[fe80::1]:547"), netip.MustParseAddrPort("[fe80::2]:546")
	if n := testing.AllocsPerRun(100, func() { buildDatagram(buf[:], src, dst, payload) }); n != 0 {
		t.Errorf("buildDatagram allocated %.1f times, want 0", n)
	}
}

func BenchmarkUDPChecksum(b *testing.B) {
	var buf [ethernetMTU]byte
	p := buildDatagram(buf[:], netip.MustParseAddrPort("[fe80::1]:547"), netip.MustParseAddrPort("[fe80::2]:546"), make([]byte, maxPayload))
	b.SetBytes(int64(len(p) - ipv6HeaderLen))
	for b.Loop() {
		if udpChecksum(p[8:24], p[24:40], p[ipv6HeaderLen:]) != 0 {
			b.Fatal("the built packet does not verify")
		}
	}
}
