package packetsocket_test

import (
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/packetsocket"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"
)

// TestSocket sends UDP datagrams from the client's namespace over a veth
// and checks what the server's packet socket and its UDP socket
// (udpsocket.ListenIPv6) each receive: the multicast to [ff02::1:2]:547
// reaches the packet socket only, with its source address, port and the
// frame's source MAC; datagrams to other ports or groups, and unicast,
// never reach the packet socket; the unicast to [server]:547 (a relay's)
// reaches the UDP socket, although another socket of the server joined
// ff02::1:2 on the interface, which without IPV6_MULTICAST_ALL=0 would
// hand it the multicast too.
func TestSocket(t *testing.T) {
	netnstest.Require(t)
	const clientMAC = "02:00:5e:10:00:01"
	p := netnstest.NewPair(t, clientMAC, "2001:db8:30::1/64")
	netnstest.IP(t, "-n", p.ClientNS, "addr", "add", "2001:db8:30::99/64", "dev", p.ClientIf, "nodad")
	clientLL := netnstest.LinkLocal(t, p.ClientNS, p.ClientIf)
	netnstest.LinkLocal(t, p.ServerNS, p.ServerIf)

	var ps *packetsocket.Socket
	var udp *udpsocket.Socket
	var member *net.UDPConn
	if err := netnstest.In(p.ServerNS, func() (err error) {
		if ps, err = packetsocket.Listen(p.ServerIf); err != nil {
			return err
		}
		if udp, err = udpsocket.ListenIPv6(p.ServerIf, netip.MustParseAddrPort("[::]:547")); err != nil {
			return err
		}
		// A bystander socket that joins the group on the interface.
		ifi, err := net.InterfaceByName(p.ServerIf)
		if err != nil {
			return err
		}
		member, err = net.ListenMulticastUDP("udp6", ifi, &net.UDPAddr{IP: net.ParseIP("ff02::1:2"), Port: 547})
		return err
	}); err != nil {
		t.Fatalf("server sockets: %v", err)
	}
	defer ps.Close()
	defer udp.Close()
	defer member.Close()

	var client *net.UDPConn
	if err := netnstest.In(p.ClientNS, func() (err error) {
		client, err = net.ListenUDP("udp6", &net.UDPAddr{Port: 546})
		return err
	}); err != nil {
		t.Fatalf("client socket: %v", err)
	}
	defer client.Close()
	send := func(to string, payload string) {
		t.Helper()
		if _, err := client.WriteToUDPAddrPort([]byte(payload), netip.MustParseAddrPort(to)); err != nil {
			t.Fatalf("send to %s: %v", to, err)
		}
	}
	group := "[ff02::1:2%" + p.ClientIf + "]"
	send(group+":548", "other port")
	send("[ff02::1:3%"+p.ClientIf+"]:547", "other group")
	send("[2001:db8:30::1]:547", "unicast")
	send(group+":547", "solicit")

	frames := make(chan packetsocket.Frame, 4)
	readErr := make(chan error, 1)
	go func() {
		buf := make([]byte, 1500)
		for {
			f, err := ps.Read(buf)
			if err != nil {
				readErr <- err
				return
			}
			f.Payload = append([]byte(nil), f.Payload...)
			frames <- f
		}
	}()
	select {
	case f := <-frames:
		want := packetsocket.Frame{
			Payload: []byte("solicit"),
			Src:     netip.AddrPortFrom(clientLL, 546),
			Dst:     packetsocket.AllServers,
			SrcMAC:  [6]byte{0x02, 0x00, 0x5e, 0x10, 0x00, 0x01},
			IfIndex: ps.IfIndex(),
		}
		if diff := cmp.Diff(want, f, cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
			cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })); diff != "" {
			t.Errorf("frame (-want +got):\n%s", diff)
		}
	case err := <-readErr:
		t.Fatal(err)
	case <-time.After(5 * time.Second):
		t.Fatal("the packet socket received nothing in 5s")
	}
	select {
	case f := <-frames:
		t.Errorf("the packet socket also received %q from %s", f.Payload, f.Src)
	case <-time.After(300 * time.Millisecond):
	}

	// The UDP socket: the unicast only (from the client's global address,
	// as a relay sends). Its reads block: what it got in a second, then
	// Close ends the read.
	received := make(chan string, 8)
	go func() {
		defer close(received)
		buf := make([]byte, 1500)
		for {
			n, from, err := udp.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			received <- string(buf[:n]) + " from " + from.Addr().String()
		}
	}()
	time.Sleep(time.Second)
	udp.Close()
	var got []string
	for r := range received {
		got = append(got, r)
	}
	if diff := cmp.Diff([]string{"unicast from 2001:db8:30::99"}, got); diff != "" {
		t.Errorf("the UDP socket received (-want +got):\n%s", diff)
	}
	// The bystander, a plain member of the group, did get the multicast:
	// without IPV6_MULTICAST_ALL=0 so would the UDP socket.
	buf := make([]byte, 1500)
	member.SetReadDeadline(time.Now().Add(time.Second))
	if n, _, err := member.ReadFromUDPAddrPort(buf); err != nil || string(buf[:n]) != "solicit" {
		t.Errorf("the group member read %q, %v; want the solicit (else this test proves nothing about the UDP socket)", buf[:n], err)
	}

	// Close wakes the blocked read.
	closed := time.Now()
	ps.Close()
	select {
	case err := <-readErr:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Read after Close: %v, want net.ErrClosed", err)
		}
		t.Logf("Read returned %v after Close", time.Since(closed).Round(time.Millisecond))
	case <-time.After(2 * time.Second):
		t.Fatal("Read still blocked 2s after Close")
	}
}

// TestReadAllocs: a Read of a waiting datagram allocates nothing.
func TestReadAllocs(t *testing.T) {
	ps, client, to := multicastPair(t, "52:54:00:10:00:02")
	const runs = 50
	for range runs + 1 { // AllocsPerRun reads once more to warm up
		if _, err := client.WriteToUDPAddrPort([]byte("solicit"), to); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 1500)
	var readErr error
	allocs := testing.AllocsPerRun(runs, func() {
		if f, err := ps.Read(buf); err != nil || string(f.Payload) != "solicit" {
			readErr = err
		}
	})
	if readErr != nil {
		t.Fatal(readErr)
	}
	if allocs != 0 {
		t.Errorf("Read allocated %.1f times per datagram, want 0", allocs)
	}
}
