package udpsocket

import (
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"golang.org/x/sys/unix"
)

// stallCase is a link on which replies can stall: the Socket on one end
// of a veth pair, a peer on the other, and addresses of the link that no
// host has, whose neighbour discovery never completes.
type stallCase struct {
	name        string
	serverCIDRs []string // on the Socket's end, beside its link-local address
	peerCIDR    string   // on the peer's end; "": the peer is its link-local address
	network     string   // the peer's socket
	listen      func(iface string) (*Socket, error)
	nowhere     func(iface string, i int) netip.Addr // the i-th address no host has
	port        uint16
}

var stallCases = []stallCase{
	{
		name:    "IPv6 neighbour discovery",
		network: "udp6",
		listen:  func(iface string) (*Socket, error) { return ListenIPv6(iface, netip.MustParseAddrPort("[::]:0")) },
		nowhere: func(iface string, i int) netip.Addr { // fe80::1:i
			return netip.AddrFrom16([16]byte{0: 0xfe, 1: 0x80, 13: 1, 14: byte(i >> 8), 15: byte(i)}).WithZone(iface)
		},
		port: 546,
	},
	{
		name:        "IPv4 ARP",
		serverCIDRs: []string{"198.18.0.1/16"},
		peerCIDR:    "198.18.0.2/16",
		network:     "udp4",
		listen:      func(iface string) (*Socket, error) { return Listen(iface, netip.MustParseAddrPort("0.0.0.0:0")) },
		nowhere: func(_ string, i int) netip.Addr { // 198.18.1.0 + i
			return netip.AddrFrom4([4]byte{198, 18, byte(1 + i>>8), byte(i)})
		},
		port: 68,
	},
}

// The bounds of a flood: it stops at whichever comes first.
const (
	floodSends = 4000
	floodTime  = 3 * time.Second
)

// stallLink is a stallCase's link, up, with DAD off on both ends.
type stallLink struct {
	c    stallCase
	pair *netnstest.Pair
	s    *Socket      // on the server end
	peer *net.UDPConn // on the other end, which answers neighbour discovery
	to   netip.AddrPort
}

func (c stallCase) up(t *testing.T) *stallLink {
	t.Helper()
	l := &stallLink{c: c, pair: netnstest.NewPair(t, "52:54:00:5e:00:01", c.serverCIDRs...)}
	p := l.pair
	var peerAddr netip.Addr
	if c.peerCIDR != "" {
		netnstest.IP(t, "-n", p.ClientNS, "addr", "add", c.peerCIDR, "dev", p.ClientIf)
		peerAddr = netip.MustParsePrefix(c.peerCIDR).Addr()
	} else {
		netnstest.LinkLocal(t, p.ServerNS, p.ServerIf) // the Socket's source address
		peerAddr = netnstest.LinkLocal(t, p.ClientNS, p.ClientIf).WithZone(p.ServerIf)
	}
	if err := netnstest.In(p.ServerNS, func() (err error) {
		l.s, err = c.listen(p.ServerIf)
		return err
	}); err != nil {
		t.Fatalf("Socket in %s: %v", p.ServerNS, err)
	}
	t.Cleanup(func() { l.s.Close() })
	if err := netnstest.In(p.ClientNS, func() (err error) {
		l.peer, err = net.ListenUDP(c.network, nil)
		return err
	}); err != nil {
		t.Fatalf("peer in %s: %v", p.ClientNS, err)
	}
	t.Cleanup(func() { l.peer.Close() })
	l.to = netip.AddrPortFrom(peerAddr, uint16(l.peer.LocalAddr().(*net.UDPAddr).Port))
	return l
}

// nowhere is the i-th destination no host answers for.
func (l *stallLink) nowhere(i int) netip.AddrPort {
	return netip.AddrPortFrom(l.c.nowhere(l.pair.ServerIf, i), l.c.port)
}

// exchange sends text to the peer, which must receive it within 5 s.
func (l *stallLink) exchange(t *testing.T, text string) {
	t.Helper()
	if _, err := l.s.WriteToUDPAddrPort([]byte(text), l.to); err != nil {
		t.Fatalf("send %q to the peer %s: %v", text, l.to, err)
	}
	l.peer.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64)
	n, err := l.peer.Read(buf)
	if err != nil {
		t.Fatalf("the peer waiting for %q: %v", text, err)
	}
	if diff := cmp.Diff(text, string(buf[:n])); diff != "" {
		t.Errorf("the peer received (-want +got):\n%s", diff)
	}
}

// flood is what TestWriteNeverWaits measured.
type flood struct {
	sends    int           // sent to nowhere, refused ones included
	took     time.Duration // all of them
	accepted int           // before the first refusal
	refused  int           // with ErrWouldBlock
	longest  time.Duration // of one WriteToUDPAddrPort
	peak     int           // the most Backlog reported queued
	atFull   backlog       // Backlog just after the first refusal
	firstErr error
	peerErr  error // sending to the peer just after the first refusal
}

// TestWriteNeverWaits reproduces the stall of the Socket's doc, in each
// family: 100-byte datagrams to addresses of the link that no host has
// (fe80::1:i; 198.18.1.0+i by ARP) wait for neighbour discovery in the
// send buffer until it is full. It checks that no write waits (none over
// 500 ms, where a wait for discovery is about 3 s), that writes are refused with ErrWouldBlock (the buffer fills:
// Backlog then reports queued >= capacity, past capacity/2), that a reply
// to the peer, whose address is resolved, is refused as well while the
// buffer is full, and that once discovery gives up and the buffer drains
// (queued back to 0, within 10 s) a reply to the peer goes out and
// arrives.
func TestWriteNeverWaits(t *testing.T) {
	netnstest.Require(t)
	for _, c := range stallCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l := c.up(t)
			l.exchange(t, "before") // the peer's address is resolved
			start := time.Now()
			f := l.flood(t)
			drainedAfter := l.waitDrained(t, 10*time.Second).Sub(start)
			t.Logf("%d sends in %v: %d accepted before the first ErrWouldBlock, %d refused; longest call %v; "+
				"Backlog at the first refusal %+v (%d bytes queued per 100-byte datagram), peak queued %d; drained %v after the first send",
				f.sends, f.took, f.accepted, f.refused, f.longest, f.atFull, f.atFull.Queued/max(f.accepted, 1), f.peak, drainedAfter)

			// A write that waited would wait for discovery to give up,
			// about 3 s; the bound leaves a loaded CI machine room.
			if f.longest > 500*time.Millisecond {
				t.Errorf("the longest WriteToUDPAddrPort took %v, want at most 500ms (a wait for discovery is about 3 s)", f.longest)
			}
			if f.refused == 0 {
				t.Fatalf("no write refused with ErrWouldBlock in %d sends (peak queued %d)", f.sends, f.peak)
			}
			var opErr *net.OpError
			if !errors.As(f.firstErr, &opErr) || opErr.Op != "write" || !errors.Is(f.firstErr, unix.EAGAIN) {
				t.Errorf("the first refusal: %v, want a *net.OpError \"write\" wrapping ErrWouldBlock and EAGAIN", f.firstErr)
			}
			if f.atFull.Queued < f.atFull.Capacity {
				t.Errorf("Backlog at the first refusal %+v, want queued >= capacity", f.atFull)
			}
			if f.peak <= f.atFull.Capacity/2 {
				t.Errorf("peak queued %d, want more than capacity/2 = %d", f.peak, f.atFull.Capacity/2)
			}
			if !errors.Is(f.peerErr, ErrWouldBlock) {
				t.Errorf("sending to the resolved peer while the buffer is full: %v, want ErrWouldBlock", f.peerErr)
			}
			l.exchange(t, "after")
		})
	}
}

// flood sends to l's unresolved addresses, each once, until the bounds
// or until 100 are refused.
func (l *stallLink) flood(t *testing.T) (f flood) {
	t.Helper()
	msg := make([]byte, 100)
	start := time.Now()
	defer func() { f.took = time.Since(start) }()
	for ; f.sends < floodSends && time.Since(start) < floodTime && f.refused < 100; f.sends++ {
		t0 := time.Now()
		_, err := l.s.WriteToUDPAddrPort(msg, l.nowhere(f.sends))
		f.longest = max(f.longest, time.Since(t0))
		queued, capacity, berr := l.s.Backlog()
		if berr != nil {
			t.Fatal(berr)
		}
		f.peak = max(f.peak, queued)
		switch {
		case err == nil:
			if f.refused == 0 {
				f.accepted++
			}
		case errors.Is(err, ErrWouldBlock):
			if f.refused++; f.refused == 1 {
				f.firstErr, f.atFull = err, backlog{queued, capacity}
				_, f.peerErr = l.s.WriteToUDPAddrPort(msg, l.to)
			}
		default:
			t.Fatalf("send %d to %s: %v", f.sends, l.nowhere(f.sends), err)
		}
	}
	return f
}

// waitDrained waits until l's Socket has nothing queued, and returns
// when; it fails the test after limit.
func (l *stallLink) waitDrained(t *testing.T, limit time.Duration) time.Time {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(10 * time.Millisecond) {
		queued, capacity, err := l.s.Backlog()
		if err != nil {
			t.Fatal(err)
		}
		if queued == 0 {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v, %d bytes of %d still queued", limit, queued, capacity)
		}
	}
}

// TestBlockingSendtoWaits shows, in each family, the stall MSG_DONTWAIT
// prevents: on the Socket's own blocking descriptor, a sendto without it
// (what WriteToUDPAddrPort did before), flooding unresolved addresses as
// TestWriteNeverWaits does, waits once the buffer is full: one call takes
// over 500 ms (until discovery gives up and frees room, about 3 s; the
// descriptor's SO_SNDTIMEO of 10 s bounds the test).
func TestBlockingSendtoWaits(t *testing.T) {
	netnstest.Require(t)
	for _, c := range stallCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l := c.up(t)
			raw, err := l.s.SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			msg := make([]byte, 100)
			var (
				waited   time.Duration
				sends    int
				sendErr  error
				optErr   error
				deadline = time.Now().Add(floodTime)
			)
			if err := raw.Control(func(fd uintptr) {
				optErr = unix.SetsockoptTimeval(int(fd), unix.SOL_SOCKET, unix.SO_SNDTIMEO, &unix.Timeval{Sec: 10})
				for ; optErr == nil && sendErr == nil && sends < floodSends && time.Now().Before(deadline); sends++ {
					t0 := time.Now()
					sendErr = unix.Sendto(int(fd), msg, 0, l.sockaddr(l.nowhere(sends)))
					if waited = time.Since(t0); waited > 500*time.Millisecond {
						break
					}
				}
			}); err != nil {
				t.Fatal(err)
			}
			if optErr != nil {
				t.Fatalf("SO_SNDTIMEO: %v", optErr)
			}
			if waited <= 500*time.Millisecond {
				t.Fatalf("no blocking sendto waited over 500ms in %d sends (the last took %v): %v", sends, waited, sendErr)
			}
			t.Logf("blocking sendto %d waited %v, then returned %v", sends, waited, sendErr)
		})
	}
}

// sockaddr is a as unix.Sendto takes it, zoned as the Socket zones it.
func (l *stallLink) sockaddr(a netip.AddrPort) unix.Sockaddr {
	if a.Addr().Is4() {
		return &unix.SockaddrInet4{Addr: a.Addr().As4(), Port: int(a.Port())}
	}
	return &unix.SockaddrInet6{Addr: a.Addr().As16(), Port: int(a.Port()), ZoneId: l.s.ifindex}
}
