package agent

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/packetsocket"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// DHCPv6 ports (RFC 8415 section 7.2).
const (
	ClientPort6 = 546
	ServerPort6 = 547
)

// Multicast6 is where Serve6 reads the messages clients multicast to
// ff02::1:2 with the frame's source MAC, and sends their replies straight
// to that MAC: a *packetsocket.Socket.
type Multicast6 interface {
	Read(b []byte) (packetsocket.Frame, error)
	FrameWriter
	Close() error
}

// FrameWriter sends a UDP datagram to dst in an Ethernet frame addressed
// to mac, from the interface's link-local address and port 547, without
// waiting: neither for neighbour discovery nor for room in a buffer
// (packetsocket.Socket.WriteTo).
type FrameWriter interface {
	WriteTo(b []byte, dst netip.AddrPort, mac [6]byte) (int, error)
}

// errNoIPv6 is why a DHCPv6 message gets no reply while the pool has no
// IPv6 part.
var errNoIPv6 = errors.New("the pool has no IPv6 part (spec.ipv6)")

// Serve6 answers DHCPv6 from the pool's IPv6 part until ctx is done or a
// socket fails, then closes both sockets; it returns nil when ctx ended
// it. It reads the messages clients multicast to ff02::1:2 from mc (with
// each frame's source MAC, the identity of a client whose DUID holds no
// MAC) and the unicast ones, which relays send, from conn (a socket of
// udpsocket.ListenIPv6, which receives no multicast, so that no message is
// answered twice), each on a goroutine of its own. A reply to what mc
// read goes back through mc, to the frame's source MAC, so that no reply
// waits for neighbour discovery (a host sending from addresses that do
// not exist cannot stall the others); a reply to what conn read goes
// through conn: to the client's address on zone (the interface's name)
// port 546, or inside RELAY-REPL to the relay it came from. Neither
// waits for room (see send.go). A nil mc reads from conn alone, which must then receive the
// multicasts itself (udpsocket.ListenIPv6Group, what the command falls
// back to without CAP_NET_RAW): clients are then found by their DUID and
// EUI-64 link-local address only, and since the socket cannot tell a
// multicast from a unicast, every message is taken as multicast (a client
// that unicasts without being invited to is answered rather than told to
// use multicast).
//
// The decision is dhcp6.Decide, from the table version being served (the
// one the DHCPv4 side serves, swapped with it), the agent's DUID
// (WithServerDUID), its probation and its clock. What the decision reports
// the server remembers: a binding REPLY (for the decline window, as for
// DHCPv4), a DECLINE within the window puts the address on probation in
// the name of the client's MAC (logged, counted, passed to the decline
// hook: an Event in API-server mode), a probation lifted, a RELEASE
// (logged and counted). Per message it allocates nothing.
func (a *Agent) Serve6(ctx context.Context, conn Conn, mc Multicast6, zone string) error {
	stop := context.AfterFunc(ctx, func() {
		conn.Close()
		if mc != nil {
			mc.Close()
		}
	})
	defer stop()
	a.log.Info("serving DHCPv6", "addr", conn.LocalAddr().String(), "multicast", mc != nil, "interface", zone,
		"relays", len(a.relays6))
	if c, ok := mc.(interface{ BadChecksums() uint64 }); ok {
		a.checksums6.Store(&c)
	}
	errc := make(chan error, 2)
	n := 1
	go func() { errc <- a.readUnicast6(conn, zone, mc != nil) }()
	if mc != nil {
		n++
		go func() { errc <- a.readMulticast6(mc, zone) }()
	}
	var first error
	for range n {
		err := <-errc
		if first == nil {
			first = err
			// One loop ended: end the other.
			conn.Close()
			if mc != nil {
				mc.Close()
			}
		}
	}
	if ctx.Err() != nil && errors.Is(first, net.ErrClosed) {
		return nil
	}
	return first
}

// scratch6 is one read loop's reused memory: the request decoded in
// place, the reply built in place, the datagram encoded in place.
type scratch6 struct {
	buf   []byte
	req   dhcp6wire.Packet
	reply dhcp6.Reply
	out   []byte
}

func newScratch6() *scratch6 {
	return &scratch6{buf: make([]byte, 65535), out: make([]byte, 0, 1500)}
}

// readMulticast6 answers what mc reads, through mc, until it fails.
func (a *Agent) readMulticast6(mc Multicast6, zone string) error {
	s := newScratch6()
	y := yielder{last: time.Now()}
	for {
		if y.due(time.Now()) { // see Serve: reads that wait in the kernel
			runtime.Gosched()
		}
		f, err := mc.Read(s.buf)
		if err != nil {
			return err
		}
		arr := dhcp6.Arrival{Source: f.Src.Addr(), FrameMAC: leasestore.MACFrom6(f.SrcMAC), HasFrame: true}
		a.handle6(s, out6{frames: mc, mac: f.SrcMAC}, f.Payload, arr, f.Src, zone)
	}
}

// readUnicast6 answers what conn reads until it fails: what relays send
// (and clients that unicast, which the decision tells to use multicast);
// with unicastOnly false, the clients' multicasts too.
func (a *Agent) readUnicast6(conn Conn, zone string, unicastOnly bool) error {
	s := newScratch6()
	for {
		n, peer, err := conn.ReadFromUDPAddrPort(s.buf)
		if err != nil {
			return err
		}
		arr := dhcp6.Arrival{Source: peer.Addr().WithZone(""), Unicast: unicastOnly}
		a.handle6(s, out6{conn: conn}, s.buf[:n], arr, peer, zone)
	}
}
