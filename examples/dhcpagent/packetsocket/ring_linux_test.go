package packetsocket_test

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/packetsocket"
)

// multicastPair is a packet socket on a veth's server end and a UDP
// socket on port 546 at its client end (whose MAC is mac), both closed at
// the end of the test, and where the client multicasts to the servers.
func multicastPair(t *testing.T, mac string) (*packetsocket.Socket, *net.UDPConn, netip.AddrPort) {
	t.Helper()
	netnstest.Require(t)
	p := netnstest.NewPair(t, mac, "2001:db8:30::1/64")
	netnstest.LinkLocal(t, p.ClientNS, p.ClientIf)
	var ps *packetsocket.Socket
	if err := netnstest.In(p.ServerNS, func() (err error) { ps, err = packetsocket.Listen(p.ServerIf); return err }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ps.Close() })
	var client *net.UDPConn
	if err := netnstest.In(p.ClientNS, func() (err error) { client, err = net.ListenUDP("udp6", &net.UDPAddr{Port: 546}); return err }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return ps, client, netip.MustParseAddrPort("[ff02::1:2%" + p.ClientIf + "]:547")
}

// TestReadAcrossBlocks sends bursts of datagrams, each more than one
// block of the receive ring holds (16 KiB), without reading while they
// arrive: Read then returns every one, in order, whole, across the blocks
// the kernel filled or closed on its timer. The bursts fill more blocks
// than the ring has (256), so a block not given back would leave the
// kernel no room and lose datagrams.
func TestReadAcrossBlocks(t *testing.T) {
	ps, client, to := multicastPair(t, "52:54:00:10:00:03")

	// A 1,000-byte message takes 1,152 bytes of the ring (headers,
	// sockaddr_ll, alignment): 14 fit a 16 KiB block, so a burst of 100
	// fills 8 blocks or more (the timer closes some early), and 40 bursts
	// at least 320, over the ring's 256.
	const burst, rounds, size = 100, 40, 1000
	msg := make([]byte, size)
	buf := make([]byte, 1500)
	var seq atomic.Uint32 // read by the timeout report while the reader runs
	for round := range rounds {
		for i := range burst {
			binary.BigEndian.PutUint32(msg, uint32(round*burst+i))
			if _, err := client.WriteToUDPAddrPort(msg, to); err != nil {
				t.Fatal(err)
			}
		}
		got := make(chan error, 1)
		go func() {
			for range burst {
				f, err := ps.Read(buf)
				if err != nil {
					got <- err
					return
				}
				if n := binary.BigEndian.Uint32(f.Payload); n != seq.Load() || len(f.Payload) != size {
					t.Errorf("datagram %d: got number %d, %d bytes", seq.Load(), n, len(f.Payload))
				}
				seq.Add(1)
			}
			got <- nil
		}()
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: read %d of %d datagrams in 10 s", round, seq.Load()-uint32(round*burst), burst)
		}
	}
}

// TestReadInterfaceGone deletes the interface a Read waits on: the read
// returns the socket's error (ENETDOWN), as a recvfrom would, instead of
// waiting on a ring nothing fills any more.
func TestReadInterfaceGone(t *testing.T) {
	netnstest.Require(t)
	p := netnstest.NewPair(t, "52:54:00:10:00:04", "2001:db8:30::1/64")
	var ps *packetsocket.Socket
	if err := netnstest.In(p.ServerNS, func() (err error) { ps, err = packetsocket.Listen(p.ServerIf); return err }); err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	read := make(chan error, 1)
	go func() {
		_, err := ps.Read(make([]byte, 1500))
		read <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the read wait in poll
	netnstest.IP(t, "-n", p.ServerNS, "link", "del", p.ServerIf)
	select {
	case err := <-read:
		if !errors.Is(err, syscall.ENETDOWN) {
			t.Errorf("Read after the interface went: %v, want ENETDOWN", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read still waiting 5 s after its interface was deleted")
	}
}
