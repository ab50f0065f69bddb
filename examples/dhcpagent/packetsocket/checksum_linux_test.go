package packetsocket

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"golang.org/x/sys/unix"
)

// TestStatusBits: parse's copies of the tp_status bits are the kernel's.
func TestStatusBits(t *testing.T) {
	if statusCsumNotReady != unix.TP_STATUS_CSUMNOTREADY || statusCsumValid != unix.TP_STATUS_CSUM_VALID {
		t.Errorf("statusCsumNotReady %#x, statusCsumValid %#x; the kernel's: %#x, %#x",
			statusCsumNotReady, statusCsumValid, unix.TP_STATUS_CSUMNOTREADY, unix.TP_STATUS_CSUM_VALID)
	}
}

// TestReadChecksums sends whole Ethernet frames from a packet socket in
// the client's namespace (the kernel neither computes nor marks the
// checksum of what a packet socket sends, so the Socket's side gets them
// as if from a wire, unverified): a SOLICIT with a wrong UDP checksum,
// one with a zero checksum, then one with the right checksum, all to
// [ff02::1:2]:547. Read returns the right one only, and BadChecksums
// counts the other two.
func TestReadChecksums(t *testing.T) {
	netnstest.Require(t)
	const clientMAC = "52:54:00:10:00:05"
	p := netnstest.NewPair(t, clientMAC, "2001:db8:30::1/64")
	clientLL := netnstest.LinkLocal(t, p.ClientNS, p.ClientIf)
	var ps *Socket
	if err := netnstest.In(p.ServerNS, func() (err error) { ps, err = Listen(p.ServerIf); return err }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ps.Close() })

	mac, _ := net.ParseMAC(clientMAC)
	frame := func(payload string, checksum func(good uint16) uint16) []byte {
		b := make([]byte, 14+ipv6HeaderLen+udpHeaderLen+len(payload))
		copy(b[0:6], []byte{0x33, 0x33, 0x00, 0x01, 0x00, 0x02})
		copy(b[6:12], mac)
		b[12], b[13] = 0x86, 0xdd
		pkt := buildDatagram(b[14:], netip.AddrPortFrom(clientLL, 546), netip.AddrPortFrom(AllServers, ServerPort), []byte(payload))
		c := uint16(pkt[ipv6HeaderLen+6])<<8 | uint16(pkt[ipv6HeaderLen+7])
		c = checksum(c)
		pkt[ipv6HeaderLen+6], pkt[ipv6HeaderLen+7] = byte(c>>8), byte(c)
		return b
	}
	var fd, ifindex int
	if err := netnstest.In(p.ClientNS, func() error {
		ifi, err := net.InterfaceByName(p.ClientIf)
		if err != nil {
			return err
		}
		ifindex = ifi.Index
		fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	to := &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IPV6), Ifindex: ifindex}
	for _, b := range [][]byte{
		frame("wrong", func(c uint16) uint16 { return c ^ 0x0101 }),
		frame("zero", func(uint16) uint16 { return 0 }),
		frame("right", func(c uint16) uint16 { return c }),
	} {
		if err := unix.Sendto(fd, b, 0, to); err != nil {
			t.Fatal(err)
		}
	}

	frames := make(chan Frame, 4)
	go func() {
		buf := make([]byte, 1500)
		for {
			f, err := ps.Read(buf)
			if err != nil {
				close(frames)
				return
			}
			f.Payload = append([]byte(nil), f.Payload...)
			frames <- f
		}
	}()
	select {
	case f := <-frames:
		want := Frame{Payload: []byte("right"), Src: netip.AddrPortFrom(clientLL, 546), Dst: AllServers,
			SrcMAC: [6]byte(mac), IfIndex: ps.IfIndex()}
		if diff := cmp.Diff(want, f, cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
			cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })); diff != "" {
			t.Errorf("frame (-want +got):\n%s", diff)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("nothing read in 5 s (BadChecksums %d)", ps.BadChecksums())
	}
	if got := ps.BadChecksums(); got != 2 {
		t.Errorf("BadChecksums() = %d, want 2 (the wrong and the zero checksum)", got)
	}
	select {
	case f, ok := <-frames:
		if ok {
			t.Errorf("also read %q", f.Payload)
		}
	case <-time.After(300 * time.Millisecond):
	}
}
