package packetsocket

import (
	"net"
	"net/netip"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"golang.org/x/sys/unix"
)

// sendHosts is a Socket on a veth's server end and, at its client end, a
// UDP socket on [::]:546, the client's link-local address and MAC; all
// closed at the end of the test.
type sendHosts struct {
	p        *netnstest.Pair
	ps       *Socket
	client   *net.UDPConn
	clientLL netip.Addr
	mac      [6]byte
}

// newSendHosts makes them; before, if not nil, runs before Listen,
// instead of waiting for the server's end to have its link-local address.
func newSendHosts(t *testing.T, mac string, before func(t *testing.T, p *netnstest.Pair)) *sendHosts {
	t.Helper()
	netnstest.Require(t)
	h := &sendHosts{p: netnstest.NewPair(t, mac, "2001:db8:30::1/64")}
	hw, err := net.ParseMAC(mac)
	if err != nil {
		t.Fatal(err)
	}
	h.mac = [6]byte(hw)
	h.clientLL = netnstest.LinkLocal(t, h.p.ClientNS, h.p.ClientIf)
	if before != nil {
		before(t, h.p)
	} else {
		netnstest.LinkLocal(t, h.p.ServerNS, h.p.ServerIf)
	}
	if err := netnstest.In(h.p.ServerNS, func() (err error) { h.ps, err = Listen(h.p.ServerIf); return err }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.ps.Close() })
	if err := netnstest.In(h.p.ClientNS, func() (err error) {
		h.client, err = net.ListenUDP("udp6", &net.UDPAddr{Port: 546})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.client.Close() })
	return h
}

// receive is the next datagram the client's UDP socket gets, within 2 s.
func (h *sendHosts) receive(t *testing.T) (string, netip.AddrPort) {
	t.Helper()
	buf := make([]byte, 1500)
	h.client.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, from, err := h.client.ReadFromUDPAddrPort(buf)
	if err != nil {
		t.Fatalf("the client received nothing: %v", err)
	}
	return string(buf[:n]), netip.AddrPortFrom(from.Addr().WithZone(""), from.Port())
}

// noLinkLocal leaves the server's end without a link-local address.
func noLinkLocal(t *testing.T, p *netnstest.Pair) {
	netnstest.IP(t, "-n", p.ServerNS, "link", "set", "dev", p.ServerIf, "addrgenmode", "none")
	netnstest.IP(t, "-n", p.ServerNS, "-6", "addr", "flush", "dev", p.ServerIf, "scope", "link")
}

// TestWriteTo: a datagram WriteTo sends reaches the client's UDP socket
// with its payload, from the server's link-local address (LinkLocal) and
// port 547; the client's kernel, which drops a datagram with a bad
// checksum, took it. Then one to fe80::dead:1, an address nobody has and
// of which the server knows no neighbour, at the client's MAC: WriteTo
// returns at once (it asked nothing of neighbour discovery, and the server
// has no neighbour entry for it afterwards), and the frame reaches the
// client's packet layer, whole and with a right checksum.
func TestWriteTo(t *testing.T) {
	h := newSendHosts(t, "52:54:00:10:00:06", nil)
	serverLL := netnstest.LinkLocal(t, h.p.ServerNS, h.p.ServerIf)
	if got := h.ps.LinkLocal(); got != serverLL {
		t.Fatalf("LinkLocal() = %v, want the interface's %v", got, serverLL)
	}
	n, err := h.ps.WriteTo([]byte("reply"), netip.AddrPortFrom(h.clientLL, 546), h.mac)
	if err != nil || n != 5 {
		t.Fatalf("WriteTo: %d, %v", n, err)
	}
	payload, from := h.receive(t)
	if diff := cmp.Diff("reply from "+netip.AddrPortFrom(serverLL, ServerPort).String(), payload+" from "+from.String()); diff != "" {
		t.Errorf("the client received (-want +got):\n%s", diff)
	}

	// A packet socket at the client's end sees what its IPv6 layer drops.
	var fd int
	if err := netnstest.In(h.p.ClientNS, func() error {
		ifi, err := net.InterfaceByName(h.p.ClientIf)
		if err != nil {
			return err
		}
		if fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_IPV6))); err != nil {
			return err
		}
		return unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IPV6), Ifindex: ifi.Index})
	}); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 2}); err != nil {
		t.Fatal(err)
	}
	nowhere := netip.MustParseAddrPort("[fe80::dead:1]:546")
	start := time.Now()
	n, err = h.ps.WriteTo([]byte("to nowhere"), nowhere, h.mac)
	took := time.Since(start)
	if err != nil || n != 10 {
		t.Fatalf("WriteTo %s: %d, %v", nowhere, n, err)
	}
	// Waiting for neighbour discovery would take about 3 s; the bound
	// leaves room for a loaded machine under -race (8 ms seen).
	if took > 100*time.Millisecond {
		t.Errorf("WriteTo %s took %v, want under 100 ms: no wait for neighbour discovery", nowhere, took)
	}
	buf := make([]byte, 1500)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			t.Fatalf("the client's packet socket: %v (no frame to %s)", err, nowhere.Addr())
		}
		var f Frame
		if n < ipv6HeaderLen || netip.AddrFrom16([16]byte(buf[24:40])) != nowhere.Addr() {
			continue // the client's own traffic, router solicitations, MLD
		}
		// Status 0: verify the checksum, which nobody else did here.
		if err := parse(&f, buf[:n], 0); err != nil {
			t.Fatalf("the frame to %s: %v", nowhere.Addr(), err)
		}
		if got := string(f.Payload) + " from " + f.Src.String(); got != "to nowhere from "+netip.AddrPortFrom(serverLL, ServerPort).String() {
			t.Errorf("the frame to %s: %s", nowhere.Addr(), got)
		}
		break
	}
	out, err := exec.Command("ip", "-n", h.p.ServerNS, "-6", "neigh", "show", "dev", h.p.ServerIf).CombinedOutput()
	if err != nil {
		t.Fatalf("ip neigh: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "fe80::dead:1") {
		t.Errorf("the server has a neighbour entry for fe80::dead:1: %s", out)
	}
}

// TestWriteToAllocs: a WriteTo allocates nothing.
func TestWriteToAllocs(t *testing.T) {
	h := newSendHosts(t, "52:54:00:10:00:07", nil)
	to := netip.AddrPortFrom(h.clientLL, 546)
	payload := []byte("reply")
	var sendErr error
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := h.ps.WriteTo(payload, to, h.mac); err != nil {
			sendErr = err
		}
	})
	if sendErr != nil {
		t.Fatal(sendErr)
	}
	if allocs != 0 {
		t.Errorf("WriteTo allocated %.1f times per datagram, want 0", allocs)
	}
}
