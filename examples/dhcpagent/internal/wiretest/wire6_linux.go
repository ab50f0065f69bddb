// Package wiretest gives the agent's network-namespace tests a raw hold
// on a link: hand-made Ethernet frames out, the DHCPv6 server's replies
// in, as a hostile host or a measuring client sees them.
package wiretest

import (
	"encoding/binary"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/packetsocket"
	"golang.org/x/sys/unix"
)

// Wire6 is a host's raw hold on a link: it sends Ethernet frames made by
// hand (a hostile host's, or a measuring client's that needs no address
// of its own) and captures every DHCPv6 server reply that reaches the
// interface (UDP from port 547), whatever its destination MAC.
type Wire6 struct {
	fd      int
	ifindex int
	mu      sync.Mutex
	got     []Captured6
	frags   int // IPv6 fragments seen: datagrams too large for one frame
	done    chan struct{}
}

// Captured6 is one reply the wire saw, and when.
type Captured6 struct {
	At       time.Time
	DstMAC   [6]byte
	Src, Dst netip.AddrPort
	Payload  []byte // the DHCPv6 message
}

// OpenWire6 opens a packet socket on iface in ns; it is closed when the
// test ends.
func OpenWire6(t testing.TB, ns, iface string) *Wire6 {
	t.Helper()
	w := &Wire6{done: make(chan struct{})}
	err := netnstest.In(ns, func() error {
		ifi, err := net.InterfaceByName(iface)
		if err != nil {
			return err
		}
		w.ifindex = ifi.Index
		proto := int(htons(unix.ETH_P_IPV6))
		if w.fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, proto); err != nil {
			return err
		}
		_ = unix.SetsockoptInt(w.fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 8<<20)
		if err := unix.SetsockoptTimeval(w.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 100_000}); err != nil {
			return err
		}
		return unix.Bind(w.fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IPV6), Ifindex: w.ifindex})
	})
	if err != nil {
		t.Fatalf("wire on %s in %s: %v", iface, ns, err)
	}
	stopped := make(chan struct{})
	go w.capture(stopped)
	t.Cleanup(func() {
		close(w.done)
		<-stopped
		unix.Close(w.fd)
	})
	return w
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func (w *Wire6) capture(stopped chan<- struct{}) {
	defer close(stopped)
	buf := make([]byte, 65536)
	for {
		select {
		case <-w.done:
			return
		default:
		}
		n, from, err := unix.Recvfrom(w.fd, buf, 0)
		if err != nil {
			continue // the read timeout: look at done again
		}
		if ll, ok := from.(*unix.SockaddrLinklayer); ok && ll.Pkttype == unix.PACKET_OUTGOING {
			continue
		}
		if n > 14+40 && binary.BigEndian.Uint16(buf[12:14]) == unix.ETH_P_IPV6 && buf[14+6] == 44 {
			w.mu.Lock()
			w.frags++
			w.mu.Unlock()
			continue
		}
		if c, ok := parseReply6(buf[:n]); ok {
			c.At = time.Now()
			w.mu.Lock()
			w.got = append(w.got, c)
			w.mu.Unlock()
		}
	}
}

// parseReply6 reads an Ethernet frame holding an IPv6 UDP datagram from
// port 547.
func parseReply6(f []byte) (Captured6, bool) {
	const eth, ip6, udp = 14, 40, 8
	if len(f) < eth+ip6+udp || binary.BigEndian.Uint16(f[12:14]) != unix.ETH_P_IPV6 || f[eth+6] != 17 {
		return Captured6{}, false
	}
	p := f[eth:]
	u := p[ip6:]
	if binary.BigEndian.Uint16(u[0:2]) != 547 {
		return Captured6{}, false
	}
	l := int(binary.BigEndian.Uint16(u[4:6]))
	if l < udp || l > len(u) {
		return Captured6{}, false
	}
	c := Captured6{
		Src:     netip.AddrPortFrom(netip.AddrFrom16([16]byte(p[8:24])), binary.BigEndian.Uint16(u[0:2])),
		Dst:     netip.AddrPortFrom(netip.AddrFrom16([16]byte(p[24:40])), binary.BigEndian.Uint16(u[2:4])),
		Payload: append([]byte(nil), u[udp:l]...),
	}
	copy(c.DstMAC[:], f[0:6])
	return c, true
}

// Send puts one Ethernet frame on the link.
func (w *Wire6) Send(frame []byte) error {
	var dst [8]byte
	copy(dst[:], frame[0:6])
	return unix.Sendto(w.fd, frame, 0, &unix.SockaddrLinklayer{Ifindex: w.ifindex, Halen: 6, Addr: dst, Protocol: htons(unix.ETH_P_IPV6)})
}

// Captured is every reply seen so far.
func (w *Wire6) Captured() []Captured6 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Captured6(nil), w.got...)
}

// WaitReply waits up to timeout for a reply, seen after the first from
// captures, that match accepts.
func (w *Wire6) WaitReply(from int, timeout time.Duration, match func(Captured6) bool) (Captured6, bool) {
	deadline := time.Now().Add(timeout)
	for {
		w.mu.Lock()
		for i := from; i < len(w.got); i++ {
			if match(w.got[i]) {
				c := w.got[i]
				w.mu.Unlock()
				return c, true
			}
		}
		w.mu.Unlock()
		if time.Now().After(deadline) {
			return Captured6{}, false
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// Fragments is how many IPv6 fragments the wire saw: pieces of datagrams
// too large for one frame, which Captured does not hold.
func (w *Wire6) Fragments() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.frags
}

// Len is how many replies were captured so far.
func (w *Wire6) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.got)
}

// Frame6 is the Ethernet frame carrying payload from src to dst, from the
// MAC srcMAC to dstMAC, with a correct UDP checksum (spoil it with
// SpoilChecksum).
func Frame6(srcMAC, dstMAC [6]byte, src, dst netip.AddrPort, payload []byte) []byte {
	f := make([]byte, 14, 14+48+len(payload))
	copy(f[0:6], dstMAC[:])
	copy(f[6:12], srcMAC[:])
	binary.BigEndian.PutUint16(f[12:14], unix.ETH_P_IPV6)
	return packetsocket.AppendDatagram(f, src, dst, payload)
}

// SpoilChecksum changes the UDP checksum of a Frame6 frame.
func SpoilChecksum(f []byte) []byte {
	f[14+40+6] ^= 0x5a
	return f
}

// MulticastMAC is the Ethernet group address of the IPv6 multicast
// address a (RFC 2464).
func MulticastMAC(a netip.Addr) [6]byte {
	b := a.As16()
	return [6]byte{0x33, 0x33, b[12], b[13], b[14], b[15]}
}
