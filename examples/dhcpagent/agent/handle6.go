package agent

import (
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// table6At is the dhcp6.Table of v at now: its IPv6 part, the agent's
// DUID, and the probation while it holds an address.
func (a *Agent) table6At(v *version, now time.Time) dhcp6.Table {
	t := dhcp6.Table{Leases: v.v6.store, Prefix: v.v6.prefix, Options: v.v6.options, ServerID: a.serverID}
	if !a.probation.Empty() {
		t.Probation, t.Now = a.probation, now
	}
	return t
}

// handle6 answers one DHCPv6 datagram that arrived as arr from peer.
func (a *Agent) handle6(s *scratch6, w replyWriter, payload []byte, arr dhcp6.Arrival, peer netip.AddrPort, zone string) {
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
	if err != nil {
		a.drop6(&s.req.Msg, peer, err)
		return
	}
	a.remember6(v, &s.req.Msg, d, now)
	s.out = s.reply.Append(s.out[:0])
	dst := peer
	if len(s.req.Relays) == 0 {
		dst = netip.AddrPortFrom(peer.Addr().WithZone(zone), ClientPort6)
	}
	if _, err := w.WriteToUDPAddrPort(s.out, dst); err != nil {
		a.counters6.SendErrors.Add(1)
		a.log.Error(err, "DHCPv6 send failed", "type", d.Type.String(), "to", dst.String())
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
