package dhcp6_test

import (
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Each source of a client's MAC selects its lease, in the documented
// order, and the first candidate with a lease wins.
func TestIdentity(t *testing.T) {
	tb := testTable(t)
	relayed := func(m dhcp6wire.Message, linkLayer []byte, peer netip.Addr) dhcp6wire.Packet {
		return dhcp6wire.Packet{Relays: []dhcp6wire.Relay{
			{Type: dhcp6wire.RelayForw, HopCount: 1, PeerAddr: netip.MustParseAddr("2001:db8:1::1"), InterfaceID: []byte("outer")},
			{Type: dhcp6wire.RelayForw, LinkAddr: netip.MustParseAddr("2001:db8:30::1"), PeerAddr: peer, InterfaceID: []byte("port7"),
				LinkLayerType: 1, LinkLayerAddr: linkLayer},
		}, Msg: m}
	}
	relayArrival := dhcp6.Arrival{Source: netip.MustParseAddr("2001:db8:1::1"), Unicast: true, FrameMAC: leasestore.MACFrom6(macNone), HasFrame: true}
	for _, tc := range []struct {
		name   string
		p      dhcp6wire.Packet
		a      dhcp6.Arrival
		source dhcp6.Source
		want   string
	}{
		{"DUID-LLT", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, llt(macU))},
			onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), dhcp6.SourceDUID, "ADVERTISE " + grantU},
		{"DUID-LL of a locally administered MAC", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, dhcp6wire.AppendDUIDLL(nil, macL))},
			onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), dhcp6.SourceDUID, "ADVERTISE " + grantL},
		{"DUID-UUID, frame MAC", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, duidUUID)},
			onLink(netip.MustParseAddr("fe80::1"), macU), dhcp6.SourceFrame, "ADVERTISE " + grantU},
		{"DUID-UUID, universal MAC's link-local", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, duidUUID)},
			onLink(llU, [6]byte{}), dhcp6.SourceLinkLocal, "ADVERTISE " + grantU},
		{"DUID-UUID, locally administered MAC's link-local", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, duidUUID)},
			onLink(llL, [6]byte{}), dhcp6.SourceLinkLocal, "ADVERTISE " + grantL},
		{"DUID-EN, universal MAC's link-local", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, duidEN)},
			onLink(llU, [6]byte{}), dhcp6.SourceLinkLocal, "ADVERTISE " + grantU},
		{"DUID-EN, locally administered MAC's link-local", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, duidEN)},
			onLink(llL, [6]byte{}), dhcp6.SourceLinkLocal, "ADVERTISE " + grantL},
		{"DUID-EN, locally administered frame MAC", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, duidEN)},
			onLink(netip.MustParseAddr("fe80::1"), macL), dhcp6.SourceFrame, "ADVERTISE " + grantL},
		{"frame before link-local", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, duidUUID)},
			onLink(llU, macL), dhcp6.SourceFrame, "ADVERTISE " + grantL},
		{"multi-NIC VM: the host's DUID-LLT names the other NIC", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, llt(macNone))},
			onLink(netip.MustParseAddr("fe80::1"), macNIC2), dhcp6.SourceFrame, "ADVERTISE " + grant2},
		{"multi-NIC VM: the DUID's MAC has a lease, so it wins", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, llt(macU))},
			onLink(netip.MustParseAddr("fe80::1"), macNIC2), dhcp6.SourceDUID, "ADVERTISE " + grantU},
		{"perfdhcp: one DUID-LLT per simulated client, the generator's frame", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, llt(macL))},
			onLink(netip.MustParseAddr("fe80::99"), macNone), dhcp6.SourceDUID, "ADVERTISE " + grantL},
		{"relayed: client link-layer address", relayed(msg(dhcp6wire.Solicit, duidUUID), macL[:], netip.MustParseAddr("fe80::1")),
			relayArrival, dhcp6.SourceRelayLinkLayer,
			`RELAY-REPL(2001:db8:1::1 if="outer") RELAY-REPL(fe80::1 if="port7") ADVERTISE ` + grantL},
		{"relayed: peer address EUI-64, locally administered", relayed(msg(dhcp6wire.Solicit, duidEN), nil, llL),
			relayArrival, dhcp6.SourceRelayPeer,
			`RELAY-REPL(2001:db8:1::1 if="outer") RELAY-REPL(fe80::54:ff:feaa:bbcc if="port7") ADVERTISE ` + grantL},
		{"relayed: the frame and source are the relay's, never used", relayed(msg(dhcp6wire.Solicit, duidEN), nil, netip.MustParseAddr("2001:db8:30::99")),
			dhcp6.Arrival{Source: llU, FrameMAC: leasestore.MACFrom6(macU), HasFrame: true}, 0,
			`RELAY-REPL(2001:db8:1::1 if="outer") RELAY-REPL(2001:db8:30::99 if="port7") ADVERTISE NoAddrsAvail`},
		{"no candidate has a lease", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, llt(macNone))},
			onLink(netip.MustParseAddr("fe80::5054:ff:fe99:9999"), macNone), 0, "ADVERTISE NoAddrsAvail"},
		{"no candidate at all", dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, duidUUID)},
			onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), 0, "ADVERTISE NoAddrsAvail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, got, err := exchange(t, tc.p, tc.a, tb)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("reply\n got %s\nwant %s", got, tc.want)
			}
			if d.Client.Source != tc.source {
				t.Errorf("chosen source %s, want %s", d.Client.Source, tc.source)
			}
		})
	}
}

func TestClientMACsOrderAndDuplicates(t *testing.T) {
	p := dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, llt(macU))}
	c := dhcp6.ClientMACs(&p, onLink(llL, macU))
	var got []dhcp6.Candidate
	for i := range c.Len() {
		got = append(got, c.At(i))
	}
	want := []dhcp6.Candidate{{MAC: leasestore.MACFrom6(macU), Source: dhcp6.SourceDUID}, {MAC: leasestore.MACFrom6(macL), Source: dhcp6.SourceLinkLocal}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("ClientMACs = %v, want %v (the frame's MAC repeats the DUID's)", got, want)
	}
}

func TestMACFromLinkLocal(t *testing.T) {
	for _, tc := range []struct {
		name string
		addr string
		mac  [6]byte
		ok   bool
	}{
		{"universal", "fe80::5054:ff:fe12:3456", macU, true},
		{"locally administered", "fe80::54:ff:feaa:bbcc", macL, true},
		{"with a zone", "fe80::5054:ff:fe12:3456%eth0", macU, true},
		{"no ff:fe", "fe80::5054:ff:fd12:3456", [6]byte{}, false},
		{"global EUI-64 is not read", "2001:db8::5054:ff:fe12:3456", [6]byte{}, false},
		{"IPv4", "10.0.0.1", [6]byte{}, false},
		{"invalid", "", [6]byte{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := netip.ParseAddr(tc.addr)
			mac, ok := dhcp6.MACFromLinkLocal(a)
			if mac != tc.mac || ok != tc.ok {
				t.Errorf("MACFromLinkLocal(%s) = %x, %v; want %x, %v", tc.addr, mac, ok, tc.mac, tc.ok)
			}
		})
	}
}
