package dhcp6_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// FuzzDecide: whatever bytes arrive, however, decoding and deciding never
// panic, and a reply is a well-formed ADVERTISE or REPLY to the request's
// transaction, with our DUID, that decodes again, whose relays mirror the
// request's, and whose addresses at non-zero lifetimes are the chosen
// lease's only.
func FuzzDecide(f *testing.F) {
	for _, x := range exchanges() {
		f.Add(x.b, uint8(0), false)
	}
	for _, name := range []string{"dhclient-solicit.hex", "dhclient-request.hex", "dhclient-release.hex", "dhcpcd-solicit.hex", "dhcpcd-request.hex", "dhcpcd-release.hex"} {
		f.Add(readCaptured(f, name), uint8(3), false)
	}
	f.Add(dhcp6wire.AppendMessage(nil, &dhcp6wire.Message{Type: dhcp6wire.Decline, ClientID: llt(macU), ServerID: serverID,
		IANA: []dhcp6wire.IANA{{IAID: 1, Addrs: []dhcp6wire.IAAddr{{Addr: addrU}}}}}), uint8(1), true)
	tb := testTable(f)
	held := tb
	held.Probation = probation.NewSet(time.Hour)
	held.Probation.Decline(leasestore.MACFrom6(macU), addrU, now)
	held.RapidCommit = true
	var req, back dhcp6wire.Packet
	var r dhcp6.Reply
	f.Fuzz(func(t *testing.T, b []byte, how uint8, unicast bool) {
		if dhcp6wire.Decode(&req, b) != nil {
			return
		}
		a := dhcp6.Arrival{Source: llU, Unicast: unicast}
		if how&1 != 0 {
			a.FrameMAC, a.HasFrame = leasestore.MACFrom6(macL), true
		}
		if how&2 != 0 {
			a.Source = netip.MustParseAddr("fe80::1")
		}
		table := tb
		if how&4 != 0 {
			table = held
		}
		d, err := dhcp6.Decide(&r, &req, a, table)
		if err != nil {
			return
		}
		if err := dhcp6wire.Decode(&back, r.Append(nil)); err != nil {
			t.Fatalf("reply does not decode: %v", err)
		}
		m := &back.Msg
		if (m.Type != dhcp6wire.Advertise && m.Type != dhcp6wire.Reply) || m.Type != d.Type || m.TransactionID != req.Msg.TransactionID ||
			string(m.ServerID) != string(serverID) || len(back.Relays) != len(req.Relays) {
			t.Fatalf("reply %s xid %x server %x relays %d to %s xid %x relays %d", m.Type, m.TransactionID, m.ServerID, len(back.Relays),
				req.Msg.Type, req.Msg.TransactionID, len(req.Relays))
		}
		for _, ia := range m.IANA {
			for _, x := range ia.Addrs {
				if x.Valid != 0 && (d.Client.Source == 0 || x.Addr != d.Lease.Addr) {
					t.Fatalf("reply gives %s, the lease is %v", x.Addr, d.Lease)
				}
			}
		}
	})
}
