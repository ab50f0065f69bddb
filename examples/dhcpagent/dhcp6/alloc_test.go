package dhcp6_test

import (
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// exchanges are the datagrams of the allocation test and the benchmarks,
// one per message type, as a client on the link (or a relay) sends them.
func exchanges() []struct {
	name string
	b    []byte
	a    dhcp6.Arrival
} {
	ll := onLink(llU, macU)
	relayed := dhcp6wire.Packet{Relays: []dhcp6wire.Relay{{Type: dhcp6wire.RelayForw, LinkAddr: netip.MustParseAddr("2001:db8:30::1"), PeerAddr: llU,
		InterfaceID: []byte("port7"), LinkLayerType: 1, LinkLayerAddr: macU[:]}}, Msg: msg(dhcp6wire.Request, duidUUID, addrU)}
	wire := func(m dhcp6wire.Message) []byte { return dhcp6wire.AppendMessage(nil, &m) }
	return []struct {
		name string
		b    []byte
		a    dhcp6.Arrival
	}{
		{"solicit-advertise", wire(msg(dhcp6wire.Solicit, llt(macU))), ll},
		{"request-reply", wire(msg(dhcp6wire.Request, llt(macU), addrU)), ll},
		{"renew-reply", wire(msg(dhcp6wire.Renew, llt(macU), addrU)), ll},
		{"rebind-reply", wire(msg(dhcp6wire.Rebind, llt(macU), addrU)), ll},
		{"confirm-reply", wire(msg(dhcp6wire.Confirm, llt(macU), addrU)), ll},
		{"release-reply", wire(msg(dhcp6wire.Release, llt(macU), addrU)), ll},
		{"information-request-reply", wire(msg(dhcp6wire.InformationRequest, duidUUID)), ll},
		{"solicit-noaddrsavail", wire(msg(dhcp6wire.Solicit, llt(macNone))), onLink(netip.MustParseAddr("fe80::1"), macNone)},
		{"relayed-request-reply", dhcp6wire.Append(nil, &relayed), dhcp6.Arrival{Source: netip.MustParseAddr("2001:db8:30::1"), Unicast: true}},
	}
}

// Decode into a reused Packet, Decide into a reused Reply and Append into
// a reused buffer allocate nothing, for every message type.
func TestExchangeDoesNotAllocate(t *testing.T) {
	tb := testTable(t)
	var req dhcp6wire.Packet
	var r dhcp6.Reply
	out := make([]byte, 0, 1500)
	for _, x := range exchanges() {
		t.Run(x.name, func(t *testing.T) {
			n := testing.AllocsPerRun(100, func() {
				if err := dhcp6wire.Decode(&req, x.b); err != nil {
					t.Fatal(err)
				}
				if _, err := dhcp6.Decide(&r, &req, x.a, tb); err != nil {
					t.Fatal(err)
				}
				out = r.Append(out[:0])
			})
			if n != 0 {
				t.Errorf("decode, decide and encode allocate %v times, want 0", n)
			}
		})
	}
}
