package agent

import (
	"errors"
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/metrics"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/packetsocket"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"
)

// Sending never waits. A reply to a unicast destination the kernel has
// not resolved (no neighbour or ARP entry yet) waits in the kernel's
// neighbour queue, and what waits there counts against the socket's send
// buffer: a host that sends messages from addresses that do not exist
// (a SOLICIT from a made-up link-local source, a REQUEST with a made-up
// ciaddr) fills that buffer with replies that wait about 3 s each, and a
// socket that then blocked its writer would stop the read loop, and
// every other client's reply with it. So:
//
//   - the sockets never block a write (udpsocket and packetsocket send
//     with MSG_DONTWAIT); a reply the kernel has no room for is dropped
//     and counted (SendDropped), and the client retransmits;
//   - a reply to a destination not known to be reachable (a DHCPv4
//     unicast to ciaddr, giaddr or a probe's source, a DHCPv6 reply
//     through the UDP socket to anything but a listed relay) is sent only
//     while the socket holds less than half of its send buffer, so such
//     replies can never take the whole buffer from the broadcasts and
//     relay replies that need none of it for long; a destination whose
//     link-layer address the kernel already holds (udpsocket's Resolved:
//     a renewing client, which asked ARP for the server before it sent)
//     is known to be reachable, so a flood of made-up ciaddrs cannot
//     deny renewals either;
//   - DHCPv6 replies to what the packet socket read go back through it,
//     in an Ethernet frame addressed to the frame's source MAC: they need
//     no neighbour discovery at all.

// errNoRoom is why a reply to a destination not known to be reachable
// was not sent: the socket's send buffer is half full.
var errNoRoom = errors.New("send buffer kept for replies to known destinations")

// backlogger is a socket that tells how full its send buffer is
// (udpsocket.Socket).
type backlogger interface {
	Backlog() (queued, capacity int, err error)
}

// resolver is a socket that tells whether the kernel already holds a
// destination's link-layer address (udpsocket.Socket).
type resolver interface {
	Resolved(netip.Addr) bool
}

// roomForUnverified reports whether w may take a reply to dst, a
// destination not known to be reachable by the protocol: dst is resolved
// (a datagram to it leaves at once), or w holds less than half its send
// buffer. A writer that cannot tell (a net.UDPConn in tests) always may.
func roomForUnverified(w replyWriter, dst netip.Addr) bool {
	if r, ok := w.(resolver); ok && r.Resolved(dst) {
		return true
	}
	b, ok := w.(backlogger)
	if !ok {
		return true
	}
	queued, capacity, err := b.Backlog()
	return err != nil || queued < capacity/2
}

// dropped reports whether a send failed for want of room rather than
// failing outright: the reply is dropped and counted, not an error.
func dropped(err error) bool {
	return errors.Is(err, errNoRoom) || errors.Is(err, udpsocket.ErrWouldBlock) || errors.Is(err, packetsocket.ErrWouldBlock)
}

// sendFailed counts in c a reply that was not sent (SendDropped when
// there was no room for it, SendErrors otherwise) and logs it within l's
// limit, its message after prefix ("DHCPv6 " or none), with kv.
func (a *Agent) sendFailed(c *metrics.Counters, l *lineLimit, now time.Time, err error, prefix string, kv ...any) {
	msg := "send failed"
	if dropped(err) {
		c.SendDropped.Add(1)
		msg = "reply dropped: no room to send it now"
	} else {
		c.SendErrors.Add(1)
	}
	if ok, skipped := l.allow(now); ok {
		a.log.Error(err, prefix+msg, append(kv, "notLogged", skipped)...)
	}
}
