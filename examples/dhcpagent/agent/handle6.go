package agent

import (
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// table6At is the dhcp6.Table of v at now: its IPv6 part, the agent's
// DUID, the relays it trusts, and the probation while it holds an
// address.
func (a *Agent) table6At(v *version, now time.Time) dhcp6.Table {
	t := dhcp6.Table{Leases: v.v6.store, Prefix: v.v6.prefix, Options: v.v6.options, ServerID: a.serverID, Relays: a.relays6}
	if !a.probation.Empty() {
		t.Probation, t.Now = a.probation, now
	}
	return t
}

// out6 is where handle6 sends a reply: through frames, straight to mac,
// for a message the packet socket read (no neighbour discovery); through
// conn otherwise.
type out6 struct {
	conn   replyWriter
	frames FrameWriter // nil: conn
	mac    [6]byte
}

// handle6 answers one DHCPv6 datagram that arrived as arr from peer.
func (a *Agent) handle6(s *scratch6, w out6, payload []byte, arr dhcp6.Arrival, peer netip.AddrPort, zone string) {
	now := a.now()
	a.counters6.Received.Add(1)
	if err := dhcp6wire.Decode(&s.req, payload); err != nil {
		a.drop6(nil, peer, err)
		return
	}
	v := a.table.Load()
	if v == nil || v.v6 == nil {
		a.drop6(&s.req.Msg, peer, errNoIPv6)
		return
	}
	d, err := dhcp6.Decide(&s.reply, &s.req, arr, a.table6At(v, now))
	if err == dhcp6.ErrUntrustedRelay {
		a.untrustedRelay(peer, now)
	}
	if err != nil {
		a.drop6(&s.req.Msg, peer, err)
		return
	}
	s.out = s.reply.Append(s.out[:0])
	if limit := dhcp6.ReplyLimit(len(payload)); len(s.out) > limit {
		a.oversized6(&s.req.Msg, peer, len(payload), len(s.out), now)
		return
	}
	// Remembered only once the reply is known to be sendable: a binding
	// the client never hears of opens no decline window.
	a.remember6(v, &s.req.Msg, d, now)
	dst := peer
	relayed := len(s.req.Relays) > 0
	if !relayed {
		dst = netip.AddrPortFrom(peer.Addr().WithZone(zone), ClientPort6)
	}
	if err := a.send6(w, s.out, dst, relayed); err != nil {
		a.sendFailed(&a.counters6, &a.sendLines6, now, err, "DHCPv6 ", "type", d.Type.String(), "to", dst.String())
		return
	}
	if d.Type == dhcp6wire.Advertise {
		a.counters6.Offers.Add(1)
	} else {
		a.counters6.Acks.Add(1)
	}
	if a.log.V(packetLevel).Enabled() {
		a.log.V(packetLevel).Info(d.Type.String(), "to", dst.String(), "request", s.req.Msg.Type.String(),
			"xid", xid6(s.req.Msg.TransactionID), "mac", d.Client.MAC.String(), "source", d.Client.Source.String(),
			"addr", d.Lease.Addr.String(), "bound", d.Bound)
	}
}

// send6 sends b to dst the way w says (see out6 and the rules in
// send.go): a reply through the UDP socket to anything but a listed
// relay is a destination not known to be reachable.
func (a *Agent) send6(w out6, b []byte, dst netip.AddrPort, relayed bool) error {
	if w.frames != nil {
		_, err := w.frames.WriteTo(b, dst, w.mac)
		return err
	}
	if !relayed && !roomForUnverified(w.conn, dst.Addr()) {
		return errNoRoom
	}
	_, err := w.conn.WriteToUDPAddrPort(b, dst)
	return err
}

// untrustedRelay counts a relayed message from a relay not listed, and
// logs it within its limit: a relay the operator forgot to list shows
// in the log, a flood of forged ones does not fill it.
func (a *Agent) untrustedRelay(peer netip.AddrPort, now time.Time) {
	a.counters6.UntrustedRelays.Add(1)
	if ok, skipped := a.relayLines6.allow(now); ok {
		a.log.Info("DHCPv6 relayed message dropped: its relay is not listed (-relays6)", "relay", peer.Addr().String(), "notLogged", skipped)
	}
}

// oversized6 counts and logs, within its limit, a reply refused for
// being larger than its request allows (dhcp6.ReplyLimit).
func (a *Agent) oversized6(m *dhcp6wire.Message, peer netip.AddrPort, request, reply int, now time.Time) {
	a.counters6.Drops.Add(1)
	a.counters6.Oversized.Add(1)
	if ok, skipped := a.oversizeLines6.allow(now); ok {
		a.log.Info("DHCPv6 reply refused: larger than its request allows", "from", peer.String(), "type", m.Type.String(),
			"request", request, "reply", reply, "limit", dhcp6.ReplyLimit(request), "notLogged", skipped)
	}
}

func (a *Agent) drop6(m *dhcp6wire.Message, peer netip.AddrPort, err error) {
	a.counters6.Drops.Add(1)
	if !a.log.V(packetLevel).Enabled() {
		return
	}
	if m == nil {
		a.log.V(packetLevel).Info("not a DHCPv6 message", "from", peer.String(), "err", err.Error())
		return
	}
	a.log.V(packetLevel).Info("no DHCPv6 reply", "from", peer.String(), "type", m.Type.String(),
		"xid", xid6(m.TransactionID), "reason", err.Error())
}

func xid6(x [3]byte) string {
	const hex = "0123456789abcdef"
	b := [6]byte{hex[x[0]>>4], hex[x[0]&15], hex[x[1]>>4], hex[x[1]&15], hex[x[2]>>4], hex[x[2]&15]}
	return string(b[:])
}
