package dhcp6_test

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

func TestDecide(t *testing.T) {
	base := testTable(t)
	rapid := base
	rapid.RapidCommit = true
	onProbation := func(by [6]byte) dhcp6.Table {
		tb := base
		tb.Probation = probation.NewSet(time.Hour)
		tb.Probation.Decline(leasestore.MACFrom6(by), addrU, now.Add(-time.Minute))
		return tb
	}
	ll := onLink(llU, [6]byte{})
	unicast := ll
	unicast.Unicast = true
	offLink := netip.MustParseAddr("2001:db8:99::10")
	old := netip.MustParseAddr("2001:db8:30::9")
	with := func(m dhcp6wire.Message, f func(m *dhcp6wire.Message)) dhcp6wire.Message { f(&m); return m }
	type result struct {
		reply              string
		bound, lifted      bool
		released, declined netip.Addr
	}
	for _, tc := range []struct {
		name string
		m    dhcp6wire.Message
		a    dhcp6.Arrival
		tb   dhcp6.Table
		want result
		err  error
	}{
		// SOLICIT
		{"solicit", msg(dhcp6wire.Solicit, llt(macU)), ll, base, result{reply: "ADVERTISE " + grantU}, nil},
		{"solicit ignores the client's hint", msg(dhcp6wire.Solicit, llt(macU), old), ll, base, result{reply: "ADVERTISE " + grantU}, nil},
		{"solicit with rapid commit, not allowed", with(msg(dhcp6wire.Solicit, llt(macU)), func(m *dhcp6wire.Message) { m.RapidCommit = true }), ll, base,
			result{reply: "ADVERTISE " + grantU}, nil},
		{"solicit with rapid commit, allowed", with(msg(dhcp6wire.Solicit, llt(macU)), func(m *dhcp6wire.Message) { m.RapidCommit = true }), ll, rapid,
			result{reply: "REPLY ia1(900/1440 2001:db8:30::10 1800/3600) rapid-commit " + options, bound: true}, nil},
		{"solicit of two IAs", with(msg(dhcp6wire.Solicit, llt(macU)), func(m *dhcp6wire.Message) { m.IANA = append(m.IANA, dhcp6wire.IANA{IAID: 2}) }), ll, base,
			result{reply: "ADVERTISE ia1(900/1440 2001:db8:30::10 1800/3600) ia2(0/0 NoAddrsAvail) " + options}, nil},
		{"solicit without IA_NA", with(msg(dhcp6wire.Solicit, llt(macU)), func(m *dhcp6wire.Message) { m.IANA = nil }), ll, base,
			result{reply: "ADVERTISE NoAddrsAvail"}, nil},
		{"solicit without ORO", with(msg(dhcp6wire.Solicit, llt(macU)), func(m *dhcp6wire.Message) { m.ORO = nil }), ll, base,
			result{reply: "ADVERTISE ia1(900/1440 2001:db8:30::10 1800/3600)"}, nil},
		{"solicit, no lease", msg(dhcp6wire.Solicit, llt(macNone)), onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), base,
			result{reply: "ADVERTISE NoAddrsAvail"}, nil},
		{"solicit, address on probation", msg(dhcp6wire.Solicit, llt(macU)), ll, onProbation(macU), result{reply: "ADVERTISE NoAddrsAvail"}, nil},
		{"solicit with a server ID", with(msg(dhcp6wire.Solicit, llt(macU)), func(m *dhcp6wire.Message) { m.ServerID = serverID }), ll, base,
			result{}, dhcp6.ErrServerIDUnexpected},
		{"solicit without a client ID", msg(dhcp6wire.Solicit, nil), ll, base, result{}, dhcp6.ErrClientIDMissing},
		{"solicit by unicast", msg(dhcp6wire.Solicit, llt(macU)), unicast, base, result{}, dhcp6.ErrUnicast},
		// REQUEST
		{"request", msg(dhcp6wire.Request, llt(macU), addrU), ll, base, result{reply: "REPLY " + grantU, bound: true}, nil},
		{"request without an address", msg(dhcp6wire.Request, llt(macU)), ll, base, result{reply: "REPLY " + grantU, bound: true}, nil},
		{"request for the old address: moved", msg(dhcp6wire.Request, llt(macU), old), ll, base,
			result{reply: "REPLY ia1(900/1440 2001:db8:30::10 1800/3600 2001:db8:30::9 0/0) " + options, bound: true}, nil},
		{"request, no lease", msg(dhcp6wire.Request, llt(macNone), addrU), onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), base,
			result{reply: "REPLY ia1(0/0 NoAddrsAvail) " + options}, nil},
		{"request for another server", with(msg(dhcp6wire.Request, llt(macU)), func(m *dhcp6wire.Message) { m.ServerID = otherID }), ll, base,
			result{}, dhcp6.ErrOtherServer},
		{"request without a server ID", with(msg(dhcp6wire.Request, llt(macU)), func(m *dhcp6wire.Message) { m.ServerID = nil }), ll, base,
			result{}, dhcp6.ErrServerIDMissing},
		{"request by unicast", msg(dhcp6wire.Request, llt(macU), addrU), unicast, base, result{reply: "REPLY UseMulticast"}, nil},
		{"request, on probation after another's decline", msg(dhcp6wire.Request, llt(macU), addrU), ll, onProbation(macNIC2),
			result{reply: "REPLY ia1(0/0 NoAddrsAvail) " + options}, nil},
		{"request naming an address it declined: lifted", msg(dhcp6wire.Request, llt(macU), addrU), ll, onProbation(macU),
			result{reply: "REPLY " + grantU, bound: true, lifted: true}, nil},
		{"request not naming the address it declined", msg(dhcp6wire.Request, llt(macU)), ll, onProbation(macU),
			result{reply: "REPLY ia1(0/0 NoAddrsAvail) " + options}, nil},
		// RENEW
		{"renew", msg(dhcp6wire.Renew, llt(macU), addrU), ll, base, result{reply: "REPLY " + grantU, bound: true}, nil},
		{"renew of a moved address", msg(dhcp6wire.Renew, llt(macU), old), ll, base,
			result{reply: "REPLY ia1(900/1440 2001:db8:30::10 1800/3600 2001:db8:30::9 0/0) " + options, bound: true}, nil},
		{"renew of a second IA", with(msg(dhcp6wire.Renew, llt(macU), addrU), func(m *dhcp6wire.Message) {
			m.IANA = append([]dhcp6wire.IANA{{IAID: 9, Addrs: []dhcp6wire.IAAddr{{Addr: old}}}}, m.IANA...)
		}), ll, base, result{reply: "REPLY ia9(0/0 2001:db8:30::9 0/0 NoBinding) " + grantU, bound: true}, nil},
		{"renew, no binding", msg(dhcp6wire.Renew, llt(macNone), addrU), onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), base,
			result{reply: "REPLY ia1(0/0 NoBinding) " + options}, nil},
		{"renew by unicast", msg(dhcp6wire.Renew, llt(macU), addrU), unicast, base, result{reply: "REPLY UseMulticast"}, nil},
		{"renew relayed, the relay's unicast is fine", msg(dhcp6wire.Renew, llt(macU), addrU), unicast, base, result{reply: "REPLY " + grantU, bound: true}, nil},
		// REBIND
		{"rebind", msg(dhcp6wire.Rebind, llt(macU), addrU), ll, base, result{reply: "REPLY " + grantU, bound: true}, nil},
		{"rebind, no lease, address off link", msg(dhcp6wire.Rebind, llt(macNone), offLink), onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), base,
			result{reply: "REPLY ia1(0/0 2001:db8:99::10 0/0 NotOnLink) " + options}, nil},
		{"rebind, no lease, address on link", msg(dhcp6wire.Rebind, llt(macNone), old), onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), base,
			result{reply: "REPLY ia1(0/0 2001:db8:30::9 0/0 NoBinding) " + options}, nil},
		{"rebind, no lease, no address", msg(dhcp6wire.Rebind, llt(macNone)), onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), base,
			result{}, dhcp6.ErrNothingToConfirm},
		{"rebind with a server ID", with(msg(dhcp6wire.Rebind, llt(macU)), func(m *dhcp6wire.Message) { m.ServerID = serverID }), ll, base,
			result{}, dhcp6.ErrServerIDUnexpected},
		// CONFIRM
		{"confirm on link", msg(dhcp6wire.Confirm, duidUUID, addrU, old), ll, base, result{reply: "REPLY Success"}, nil},
		{"confirm off link", msg(dhcp6wire.Confirm, duidUUID, addrU, offLink), ll, base, result{reply: "REPLY NotOnLink"}, nil},
		{"confirm without address", msg(dhcp6wire.Confirm, duidUUID), ll, base, result{}, dhcp6.ErrNothingToConfirm},
		{"confirm with a server ID", with(msg(dhcp6wire.Confirm, duidUUID, addrU), func(m *dhcp6wire.Message) { m.ServerID = serverID }), ll, base,
			result{}, dhcp6.ErrServerIDUnexpected},
		// RELEASE, DECLINE
		{"release", msg(dhcp6wire.Release, llt(macU), addrU), ll, base, result{reply: "REPLY Success", released: addrU}, nil},
		{"release of another address", msg(dhcp6wire.Release, llt(macU), old), ll, base, result{reply: "REPLY Success ia1(0/0 NoBinding)"}, nil},
		{"release without a lease", msg(dhcp6wire.Release, llt(macNone), addrU), onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), base,
			result{reply: "REPLY Success ia1(0/0 NoBinding)"}, nil},
		{"release by unicast", msg(dhcp6wire.Release, llt(macU), addrU), unicast, base, result{reply: "REPLY UseMulticast"}, nil},
		{"decline", msg(dhcp6wire.Decline, llt(macU), addrU), ll, base, result{reply: "REPLY Success", declined: addrU}, nil},
		{"decline of an address that is not the client's", msg(dhcp6wire.Decline, llt(macU), addrL), ll, base,
			result{reply: "REPLY Success ia1(0/0 NoBinding)"}, nil},
		{"decline for another server", with(msg(dhcp6wire.Decline, llt(macU), addrU), func(m *dhcp6wire.Message) { m.ServerID = otherID }), ll, base,
			result{}, dhcp6.ErrOtherServer},
		// INFORMATION-REQUEST
		{"information request", msg(dhcp6wire.InformationRequest, duidUUID), onLink(netip.MustParseAddr("fe80::1"), [6]byte{}), base,
			result{reply: "REPLY " + options}, nil},
		{"information request without a client ID", msg(dhcp6wire.InformationRequest, nil), ll, base, result{reply: "REPLY " + options}, nil},
		{"information request with our server ID", with(msg(dhcp6wire.InformationRequest, duidUUID), func(m *dhcp6wire.Message) { m.ServerID = serverID }), ll, base,
			result{reply: "REPLY " + options}, nil},
		{"information request for another server", with(msg(dhcp6wire.InformationRequest, duidUUID), func(m *dhcp6wire.Message) { m.ServerID = otherID }), ll, base,
			result{}, dhcp6.ErrOtherServer},
		{"information request with an IA", with(msg(dhcp6wire.InformationRequest, duidUUID), func(m *dhcp6wire.Message) { m.IANA = []dhcp6wire.IANA{{IAID: 1}} }), ll, base,
			result{}, dhcp6.ErrInformationIA},
		// What a server never answers
		{"advertise", msg(dhcp6wire.Advertise, llt(macU)), ll, base, result{}, dhcp6.ErrMessageType},
		{"reply", msg(dhcp6wire.Reply, llt(macU)), ll, base, result{}, dhcp6.ErrMessageType},
		{"no server DUID", msg(dhcp6wire.Solicit, llt(macU)), ll, dhcp6.Table{Leases: base.Leases}, result{}, dhcp6.ErrNoServerID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := dhcp6wire.Packet{Msg: tc.m}
			if tc.name == "renew relayed, the relay's unicast is fine" {
				p.Relays = []dhcp6wire.Relay{{Type: dhcp6wire.RelayForw, PeerAddr: llU, InterfaceID: []byte("x")}}
			}
			d, reply, err := exchange(t, p, tc.a, tc.tb)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Decide error %v, want %v", err, tc.err)
			}
			if len(p.Relays) > 0 {
				reply = reply[len(`RELAY-REPL(fe80::5054:ff:fe12:3456 if="x") `):]
			}
			got := result{reply: reply, bound: d.Bound, lifted: d.Lifted, released: d.Released, declined: d.Declined}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// Lifetimes: the pool's, the default, infinity.
func TestLifetimes(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts leasestore.Options
		want string
	}{
		{"default", leasestore.Options{}, "ADVERTISE ia1(1800/2880 2001:db8:30::10 3600/3600)"},
		{"lease time", leasestore.Options{LeaseTime: 10 * time.Minute}, "ADVERTISE ia1(300/480 2001:db8:30::10 600/600)"},
		{"infinite", leasestore.Options{PreferredLifetime: leasestore.Infinity, ValidLifetime: leasestore.Infinity},
			"ADVERTISE ia1(4294967295/4294967295 2001:db8:30::10 4294967295/4294967295)"},
		{"infinite valid, finite preferred", leasestore.Options{PreferredLifetime: 100 * time.Second, ValidLifetime: leasestore.Infinity},
			"ADVERTISE ia1(50/80 2001:db8:30::10 100/4294967295)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, problems := leasestore.Build(ipam.Snapshot{Spec: ipam.Spec{Prefix: prefix}, Allocations: []ipam.Allocation{
				{Addr: addrU, Owner: leasestore.MACFrom6(macU).String()},
			}}, tc.opts)
			if len(problems) != 0 {
				t.Fatal(problems)
			}
			_, got, err := exchange(t, dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, llt(macU))}, onLink(llU, [6]byte{}), dhcp6.TableOf(s, serverID))
			if err != nil || got != tc.want {
				t.Errorf("got %s, %v\nwant %s", got, err, tc.want)
			}
		})
	}
}

// A relay's other options are not echoed; a RELAY-REPL from a client is
// dropped.
func TestRelays(t *testing.T) {
	tb := testTable(t)
	p := dhcp6wire.Packet{Relays: []dhcp6wire.Relay{{Type: dhcp6wire.RelayForw, HopCount: 3, LinkAddr: netip.MustParseAddr("2001:db8:30::1"), PeerAddr: llU,
		Options: []dhcp6wire.Option{{Code: 37, Data: []byte{0, 0, 0, 1, 'r'}}}}}, Msg: msg(dhcp6wire.Solicit, duidUUID)}
	var req dhcp6wire.Packet
	if err := dhcp6wire.Decode(&req, dhcp6wire.Append(nil, &p)); err != nil {
		t.Fatal(err)
	}
	var r dhcp6.Reply
	if _, err := dhcp6.Decide(&r, &req, dhcp6.Arrival{Source: netip.MustParseAddr("2001:db8:30::1"), Unicast: true}, tb); err != nil {
		t.Fatal(err)
	}
	rr := r.Packet.Relays[0]
	if rr.Type != dhcp6wire.RelayRepl || rr.HopCount != 3 || rr.LinkAddr != p.Relays[0].LinkAddr || rr.PeerAddr != llU || rr.InterfaceID != nil || len(rr.Options) != 0 {
		t.Errorf("relay reply %+v", rr)
	}
	p.Relays[0].Type = dhcp6wire.RelayRepl
	if err := dhcp6wire.Decode(&req, dhcp6wire.Append(nil, &p)); err != nil {
		t.Fatal(err)
	}
	if _, err := dhcp6.Decide(&r, &req, dhcp6.Arrival{Source: llU}, tb); !errors.Is(err, dhcp6.ErrMessageType) {
		t.Errorf("RELAY-REPL from a client: %v, want ErrMessageType", err)
	}
}
