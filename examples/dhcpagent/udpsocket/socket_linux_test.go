package udpsocket

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// family is a Socket family the tests run on: how to listen on its
// loopback address, and the plain socket a peer uses.
type family struct {
	name     string
	listen   func() (*Socket, error)
	network  string
	loopback net.IP
}

var families = []family{
	{"IPv4", func() (*Socket, error) { return Listen("", netip.MustParseAddrPort("127.0.0.1:0")) }, "udp4", net.IPv4(127, 0, 0, 1)},
	{"IPv6", func() (*Socket, error) { return ListenIPv6("", netip.MustParseAddrPort("[::1]:0")) }, "udp6", net.IPv6loopback},
}

// listenLoopback is a Socket on f's loopback address at a free port,
// closed at the end of the test.
func (f family) listenLoopback(t *testing.T) *Socket {
	t.Helper()
	s, err := f.listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// peer is a plain UDP socket on f's loopback address.
func (f family) peer(t *testing.T) *net.UDPConn {
	t.Helper()
	peer, err := net.ListenUDP(f.network, &net.UDPAddr{IP: f.loopback})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	return peer
}

// listenLoopback is an IPv4 Socket on 127.0.0.1 at a free port.
func listenLoopback(t *testing.T) *Socket { return families[0].listenLoopback(t) }

// TestSocketRoundTrip sends a datagram to a Socket and one back, in each
// family: the sender and the bytes arrive as sent, and LocalAddr names
// the port the kernel picked.
func TestSocketRoundTrip(t *testing.T) {
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			s := f.listenLoopback(t)
			local := s.LocalAddr().(*net.UDPAddr)
			if local.Port == 0 || !local.IP.Equal(f.loopback) {
				t.Fatalf("LocalAddr = %s, want %s and the port the kernel picked", local, f.loopback)
			}
			peer := f.peer(t)
			peer.SetDeadline(time.Now().Add(5 * time.Second))

			if _, err := peer.WriteToUDPAddrPort([]byte("request"), local.AddrPort()); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 64)
			n, from, err := s.ReadFromUDPAddrPort(buf)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff("request from "+peer.LocalAddr().String(), string(buf[:n])+" from "+from.String()); diff != "" {
				t.Errorf("ReadFromUDPAddrPort (-want +got):\n%s", diff)
			}
			if _, err := s.WriteToUDPAddrPort([]byte("reply"), from); err != nil {
				t.Fatal(err)
			}
			n, replier, err := peer.ReadFromUDPAddrPort(buf)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff("reply from "+local.String(), string(buf[:n])+" from "+replier.String()); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSocketAllocations checks the promise of Socket's doc: reading a
// request and writing a reply allocate nothing, in either family.
func TestSocketAllocations(t *testing.T) {
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			s := f.listenLoopback(t)
			peer := f.peer(t)
			to := s.LocalAddr().(*net.UDPAddr).AddrPort()
			back := peer.LocalAddr().(*net.UDPAddr).AddrPort()
			msg, buf := []byte("request"), make([]byte, 64)
			// AllocsPerRun calls the function once to warm up, then runs
			// times: every datagram it reads is sent before, so the peer
			// is not counted.
			const runs = 20
			for range runs + 1 {
				if _, err := peer.WriteToUDPAddrPort(msg, to); err != nil {
					t.Fatal(err)
				}
			}
			socketAllocs := testing.AllocsPerRun(runs, func() {
				if _, _, err := s.ReadFromUDPAddrPort(buf); err != nil {
					t.Fatal(err)
				}
				if _, err := s.WriteToUDPAddrPort(msg, back); err != nil {
					t.Fatal(err)
				}
			})
			if socketAllocs != 0 {
				t.Errorf("Socket read + write: %v allocations, want 0", socketAllocs)
			}
		})
	}
}

// TestSocketConcurrentWrites checks that a Socket is safe for concurrent
// use (run with -race): 4 goroutines send 50 datagrams each through one
// Socket while a read waits in it, and every datagram arrives whole.
func TestSocketConcurrentWrites(t *testing.T) {
	s := listenLoopback(t)
	peer, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	peer.SetReadBuffer(1 << 20)
	to := peer.LocalAddr().(*net.UDPAddr).AddrPort()
	read := make(chan error, 1)
	go func() { // a read waiting in the Socket while the writes go on
		_, _, err := s.ReadFromUDPAddrPort(make([]byte, 64))
		read <- err
	}()

	const writers, each = 4, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := s.WriteToUDPAddrPort([]byte(fmt.Sprintf("%d-%02d", w, i)), to); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()

	got := map[string]bool{}
	buf := make([]byte, 64)
	peer.SetReadDeadline(time.Now().Add(5 * time.Second))
	for len(got) < writers*each {
		n, err := peer.Read(buf)
		if err != nil {
			t.Fatalf("after %d of %d datagrams: %v", len(got), writers*each, err)
		}
		got[string(buf[:n])] = true
	}
	for w := range writers {
		for i := range each {
			if k := fmt.Sprintf("%d-%02d", w, i); !got[k] {
				t.Errorf("datagram %s missing or garbled", k)
			}
		}
	}
	s.Close()
	if err := <-read; !errors.Is(err, net.ErrClosed) {
		t.Errorf("the waiting read after Close: %v, want net.ErrClosed", err)
	}
}

// TestSocketCloseWakesRead closes a Socket while a read waits in the
// kernel: the read returns net.ErrClosed promptly, and so does a second
// Close.
func TestSocketCloseWakesRead(t *testing.T) {
	s, err := Listen("", netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan error, 1)
	go func() {
		_, _, err := s.ReadFromUDPAddrPort(make([]byte, 64))
		read <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the read block in recvfrom
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-read:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("read after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a read waiting in the kernel did not return within 5 s of Close")
	}
	if err := s.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v, want net.ErrClosed", err)
	}
	if _, _, err := s.ReadFromUDPAddrPort(make([]byte, 64)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read on a closed Socket: %v, want net.ErrClosed", err)
	}
}

// TestSocketErrors: what Listen and WriteToUDPAddrPort refuse.
func TestSocketErrors(t *testing.T) {
	tests := []struct {
		name string
		do   func() error
		want error // nil: any error
	}{
		{"listen on IPv6", func() error {
			_, err := Listen("", netip.MustParseAddrPort("[::1]:0"))
			return err
		}, ErrNotIPv4},
		{"listen on a missing interface", func() error {
			_, err := Listen("vmnetkit-none0", netip.MustParseAddrPort("127.0.0.1:0"))
			return err
		}, nil},
		{"send to IPv6", func() error {
			_, err := listenLoopback(t).WriteToUDPAddrPort([]byte("x"), netip.MustParseAddrPort("[::1]:68"))
			return err
		}, ErrNotIPv4},
		{"listen6 on IPv4", func() error {
			_, err := ListenIPv6("", netip.MustParseAddrPort("127.0.0.1:0"))
			return err
		}, ErrNotIPv6},
		{"listen6 on IPv4-mapped", func() error {
			_, err := ListenIPv6("", netip.MustParseAddrPort("[::ffff:127.0.0.1]:0"))
			return err
		}, ErrNotIPv6},
		{"listen6 on a missing interface", func() error {
			_, err := ListenIPv6("vmnetkit-none0", netip.MustParseAddrPort("[::1]:0"))
			return err
		}, nil},
		{"join the group without an interface", func() error {
			_, err := ListenIPv6Group("", netip.MustParseAddrPort("[::]:0"))
			return err
		}, nil},
		{"IPv6 socket sends to IPv4", func() error {
			_, err := families[1].listenLoopback(t).WriteToUDPAddrPort([]byte("x"), netip.MustParseAddrPort("127.0.0.1:68"))
			return err
		}, ErrNotIPv6},
		{"IPv6 socket sends to an unknown zone", func() error {
			_, err := families[1].listenLoopback(t).WriteToUDPAddrPort([]byte("x"), netip.MustParseAddrPort("[fe80::1%vmnetkit-none0]:546"))
			return err
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
		})
	}
}
