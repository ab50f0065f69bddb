package dhcp6_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The pool of the tests: 2001:db8:30::/64, the lab's link, with three
// leases: a universally administered MAC (the captured clients' MAC), a
// locally administered one (KubeVirt's MAC pools), and the second NIC of
// a VM whose first NIC is the first lease.
var (
	prefix   = netip.MustParsePrefix("2001:db8:30::/64")
	macU     = [6]byte{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}
	macL     = [6]byte{0x02, 0x54, 0x00, 0xaa, 0xbb, 0xcc}
	macNIC2  = [6]byte{0x52, 0x54, 0x00, 0x00, 0x00, 0x02}
	macNone  = [6]byte{0x52, 0x54, 0x00, 0x99, 0x99, 0x99} // no lease
	addrU    = netip.MustParseAddr("2001:db8:30::10")
	addrL    = netip.MustParseAddr("2001:db8:30::11")
	addrNIC2 = netip.MustParseAddr("2001:db8:30::12")
	serverID = dhcp6wire.AppendDUIDLL(nil, [6]byte{0x02, 0, 0, 0, 0, 0x01})
	otherID  = dhcp6wire.AppendDUIDLL(nil, [6]byte{0x02, 0, 0, 0, 0, 0x02})

	// llU and llL are the EUI-64 link-local addresses of macU and macL.
	llU = netip.MustParseAddr("fe80::5054:ff:fe12:3456")
	llL = netip.MustParseAddr("fe80::54:ff:feaa:bbcc")

	testOptions = leasestore.Options{
		DNS:               []netip.Addr{netip.MustParseAddr("2001:db8:30::53")},
		DomainSearch:      []string{"lab.example.com"},
		PreferredLifetime: 30 * time.Minute,
		ValidLifetime:     time.Hour,
	}
	now = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
)

func testStore(t testing.TB) *leasestore.Store {
	t.Helper()
	s, problems := leasestore.Build(ipam.Snapshot{Spec: ipam.Spec{Prefix: prefix}, Allocations: []ipam.Allocation{
		{Addr: addrU, Owner: leasestore.MACFrom6(macU).String()},
		{Addr: addrL, Owner: leasestore.MACFrom6(macL).String()},
		{Addr: addrNIC2, Owner: leasestore.MACFrom6(macNIC2).String()},
	}}, testOptions)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	return s
}

func testTable(t testing.TB) dhcp6.Table {
	tb := dhcp6.TableOf(testStore(t), serverID)
	tb.Now, tb.Relays = now, testRelays
	return tb
}

// testRelays are the relays the tests' tables trust: the ones their
// RELAY-FORWs come from.
var testRelays = []netip.Prefix{
	netip.MustParsePrefix("2001:db8:30::1/128"),
	netip.MustParsePrefix("2001:db8:1::/64"),
	netip.PrefixFrom(llU, 128),
}

// msg returns a client message of type typ from the DUID duid, with one
// IA_NA of IAID 1 naming addrs, asking for DNS servers and the search
// list.
func msg(typ dhcp6wire.MessageType, duid []byte, addrs ...netip.Addr) dhcp6wire.Message {
	m := dhcp6wire.Message{
		Type: typ, TransactionID: [3]byte{0xab, 0xcd, 0xef}, ClientID: duid,
		ORO: []dhcp6wire.OptionCode{dhcp6wire.OptionDNSServers, dhcp6wire.OptionDomainList},
	}
	if typ != dhcp6wire.InformationRequest {
		ia := dhcp6wire.IANA{IAID: 1}
		for _, a := range addrs {
			ia.Addrs = append(ia.Addrs, dhcp6wire.IAAddr{Addr: a, Preferred: 100, Valid: 200})
		}
		m.IANA = []dhcp6wire.IANA{ia}
	}
	switch typ {
	case dhcp6wire.Request, dhcp6wire.Renew, dhcp6wire.Release, dhcp6wire.Decline:
		m.ServerID = serverID
	}
	return m
}

func llt(mac [6]byte) []byte { return dhcp6wire.AppendDUIDLLT(nil, 849631439, mac) }

var (
	duidUUID = []byte{0, 4, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00}
	duidEN   = []byte{0, 2, 0, 0, 0x09, 0xbf, 'v', 'm', '-', '1'}
)

// onLink is the arrival of a message a client multicast on the server's
// link, from the link-local address src, in a frame from frame (none
// when frame is the zero array).
func onLink(src netip.Addr, frame [6]byte) dhcp6.Arrival {
	return dhcp6.Arrival{Source: src, FrameMAC: leasestore.MACFrom6(frame), HasFrame: frame != [6]byte{}}
}

// exchange decides the answer to m arriving as a, through the wire: it
// encodes m, decodes it as the server would, decides, encodes the reply
// and decodes it again, and returns the reply as describe writes it.
func exchange(t testing.TB, p dhcp6wire.Packet, a dhcp6.Arrival, tb dhcp6.Table) (dhcp6.Decision, string, error) {
	t.Helper()
	var req dhcp6wire.Packet
	if err := dhcp6wire.Decode(&req, dhcp6wire.Append(nil, &p)); err != nil {
		t.Fatal(err)
	}
	var r dhcp6.Reply
	d, err := dhcp6.Decide(&r, &req, a, tb)
	if err != nil {
		return d, "", err
	}
	var back dhcp6wire.Packet
	if err := dhcp6wire.Decode(&back, r.Append(nil)); err != nil {
		t.Fatalf("the reply does not decode: %v", err)
	}
	if back.Msg.TransactionID != p.Msg.TransactionID || string(back.Msg.ClientID) != string(p.Msg.ClientID) ||
		string(back.Msg.ServerID) != string(tb.ServerID) {
		t.Errorf("reply xid %x client %x server %x: want the request's and ours", back.Msg.TransactionID, back.Msg.ClientID, back.Msg.ServerID)
	}
	if d.Type != back.Msg.Type {
		t.Errorf("Decision.Type %s, reply %s", d.Type, back.Msg.Type)
	}
	return d, describe(&back), nil
}

// describe writes a reply on one line: its relays, type, status, IAs
// (IAID, T1/T2, addresses with preferred/valid lifetimes, status),
// rapid commit, DNS servers and search list.
func describe(p *dhcp6wire.Packet) string {
	var b strings.Builder
	for _, r := range p.Relays {
		fmt.Fprintf(&b, "%s(%s if=%q) ", r.Type, r.PeerAddr, r.InterfaceID)
	}
	m := &p.Msg
	b.WriteString(m.Type.String())
	if m.Status.Present {
		fmt.Fprintf(&b, " %s", m.Status.Code)
	}
	for _, ia := range m.IANA {
		fmt.Fprintf(&b, " ia%d(%d/%d", ia.IAID, ia.T1, ia.T2)
		for _, a := range ia.Addrs {
			fmt.Fprintf(&b, " %s %d/%d", a.Addr, a.Preferred, a.Valid)
		}
		if ia.Status.Present {
			fmt.Fprintf(&b, " %s", ia.Status.Code)
		}
		b.WriteString(")")
	}
	if m.RapidCommit {
		b.WriteString(" rapid-commit")
	}
	if len(m.DNS) > 0 {
		fmt.Fprintf(&b, " dns%v", m.DNS)
	}
	if len(m.DomainList) > 0 {
		names, _ := dhcp6wire.ParseDomainList(m.DomainList)
		fmt.Fprintf(&b, " search%v", names)
	}
	return b.String()
}

// The replies of the pool's lifetimes (30 min preferred, 1 h valid: T1
// 900 s, T2 1440 s) and options.
const (
	grantU  = "ia1(900/1440 2001:db8:30::10 1800/3600) dns[2001:db8:30::53] search[lab.example.com]"
	grantL  = "ia1(900/1440 2001:db8:30::11 1800/3600) dns[2001:db8:30::53] search[lab.example.com]"
	grant2  = "ia1(900/1440 2001:db8:30::12 1800/3600) dns[2001:db8:30::53] search[lab.example.com]"
	options = "dns[2001:db8:30::53] search[lab.example.com]"
)
