package agent

import (
	"net"
	"net/netip"
	"sync"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
)

// Handle is the agent's server4.Handler: it answers m on conn at
// Destination, or takes note of a DECLINE or RELEASE, and counts each
// (see Stats). Serve calls the same code with the socket's own address
// values, without the net.Addr allocations.
//
// A DECLINE of the client's own address (see Declined), within the
// decline window after the agent's ACK that bound it (see the package
// documentation), puts the address on probation, is logged at level 0
// with the MAC, the address and the client's message (quoted and cut, see
// clientText), and is passed to the decline hook; an accepted RELEASE is
// logged at level 0. Those level-0 lines are limited to logBurst a minute
// of each kind; the summary counts them all. Every reply, and every
// message that gets none and why, is logged at packetLevel.
// A NAK that cannot be sent to ciaddr is broadcast instead.
func (a *Agent) Handle(conn net.PacketConn, peer net.Addr, m *dhcpv4.DHCPv4) {
	w, ok := conn.(replyWriter)
	if !ok {
		w = packetConnWriter{conn}
	}
	a.handle(w, dhcp4.AddrPortOf(peer), m)
}

// replyWriter is what handle sends replies with: *net.UDPConn and *Socket
// have it.
type replyWriter interface {
	WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error)
}

// packetConnWriter sends through any other net.PacketConn.
type packetConnWriter struct{ net.PacketConn }

func (w packetConnWriter) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	return w.WriteTo(b, net.UDPAddrFromAddrPort(addr))
}

func (a *Agent) handle(conn replyWriter, peer netip.AddrPort, m *dhcpv4.DHCPv4) {
	now := a.now()
	a.counters.Received.Add(1)
	switch dhcp4.MessageTypeOf(m) {
	case dhcpv4.MessageTypeDecline:
		a.decline(m, now)
		return
	case dhcpv4.MessageTypeRelease:
		a.release(m, now)
		return
	}
	scratch := replyScratches.Get().(*dhcp4.Scratch) // resp lives in it until Handle returns
	defer replyScratches.Put(scratch)
	resp, err := a.respondIn(scratch, m, now)
	if err != nil {
		a.counters.Drops.Add(1)
		if a.log.V(packetLevel).Enabled() { // the arguments cost more than the decision
			a.log.V(packetLevel).Info("no reply", "xid", m.TransactionID.String(), "mac", m.ClientHWAddr.String(),
				"type", m.MessageType().String(), "reason", err.Error())
		}
		return
	}
	typ := dhcp4.MessageTypeOf(resp)
	dst := dhcp4.DestinationOf(m, peer)
	buf := sendBuffers.Get().(*[]byte)
	defer sendBuffers.Put(buf)
	b := dhcp4wire.Append((*buf)[:0], resp)
	*buf = b
	err = a.send4(conn, b, dst)
	if err != nil && typ == dhcpv4.MessageTypeNak && dst != dhcp4.Broadcast() && dst.Port() == dhcp4.ClientPort {
		if a.log.V(packetLevel).Enabled() {
			a.log.V(packetLevel).Info("NAK to ciaddr failed, broadcasting it", "xid", resp.TransactionID.String(),
				"to", dst.String(), "err", err.Error())
		}
		dst = dhcp4.Broadcast()
		err = a.send4(conn, b, dst)
	}
	if err != nil {
		a.sendFailed(&a.counters, &a.sendLines, now, err, "", "xid", m.TransactionID.String(), "to", dst.String())
		return
	}
	countReply(&a.counters, typ)
	if !a.log.V(packetLevel).Enabled() {
		return
	}
	attrs := []any{"xid", resp.TransactionID.String(), "mac", resp.ClientHWAddr.String(), "to", dst.String()}
	if typ == dhcpv4.MessageTypeNak {
		attrs = append(attrs, "reason", resp.Message())
	} else {
		attrs = append(attrs, "addr", resp.YourIPAddr.String())
	}
	a.log.V(packetLevel).Info(typ.String(), attrs...)
}

// send4 sends b to dst through conn. Every DHCPv4 destination but the
// broadcast address needs ARP (ciaddr, giaddr and a probe's source are the
// client's word), so such a reply is sent only while conn has room for
// replies to destinations not known to be reachable (see send.go).
func (a *Agent) send4(conn replyWriter, b []byte, dst netip.AddrPort) error {
	if dst != dhcp4.Broadcast() && !roomForUnverified(conn, dst.Addr()) {
		return errNoRoom
	}
	_, err := conn.WriteToUDPAddrPort(b, dst)
	return err
}

// sendBuffers holds the buffers Handle encodes replies into. A reply of
// the agent is at most the client's limit, 1,500 bytes on Ethernet; a
// larger one (a client that accepts more) grows its buffer once.
var sendBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1500); return &b }}

// replyScratches are the dhcp4.Scratch values Handle builds replies in,
// each reused once its reply is sent.
var replyScratches = sync.Pool{New: func() any { return new(dhcp4.Scratch) }}
