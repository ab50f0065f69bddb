package dhcp6

import (
	"net/netip"
	"strconv"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Source is where a candidate MAC of a client comes from, in the order
// [ClientMACs] lists them.
type Source uint8

// Sources of a client's MAC, first to last.
const (
	// SourceDUID: the MAC inside the client's DUID-LLT or DUID-LL of
	// hardware type 1 (Ethernet).
	SourceDUID Source = iota + 1
	// SourceFrame: the Ethernet source address of the frame that carried
	// the message, when it was not relayed and the caller read it.
	SourceFrame
	// SourceLinkLocal: the MAC of the modified EUI-64 interface
	// identifier of the client's link-local source address, when the
	// message was not relayed.
	SourceLinkLocal
	// SourceRelayLinkLayer: the client link-layer address option (RFC
	// 6939, Ethernet) of the relay closest to the client.
	SourceRelayLinkLayer
	// SourceRelayPeer: the MAC of the EUI-64 interface identifier of the
	// link-local peer address of the relay closest to the client.
	SourceRelayPeer
)

var sourceNames = [...]string{
	SourceDUID: "duid", SourceFrame: "frame", SourceLinkLocal: "link-local",
	SourceRelayLinkLayer: "relay-link-layer", SourceRelayPeer: "relay-peer",
}

// String returns the source's name, "duid", as metrics and logs label it.
func (s Source) String() string {
	if int(s) < len(sourceNames) && sourceNames[s] != "" {
		return sourceNames[s]
	}
	return "source " + strconv.Itoa(int(s))
}

// Candidate is one MAC a message may come from, and where it was found.
type Candidate struct {
	MAC    leasestore.MAC
	Source Source
}

// Candidates are a message's candidate MACs in order, each MAC once: at
// most one from each Source. The zero value holds none. It is a value, so
// that building it allocates nothing.
type Candidates struct {
	list [5]Candidate
	n    int
}

// Len returns the number of candidates.
func (c *Candidates) Len() int { return c.n }

// At returns the i-th candidate, 0 <= i < Len.
func (c *Candidates) At(i int) Candidate { return c.list[:c.n][i] }

// add appends mac from src unless an earlier source gave the same MAC.
func (c *Candidates) add(mac [6]byte, src Source) {
	m := leasestore.MACFrom6(mac)
	for _, have := range c.list[:c.n] {
		if have.MAC == m {
			return
		}
	}
	c.list[c.n] = Candidate{MAC: m, Source: src}
	c.n++
}

// Arrival is what the server knows of how a datagram reached it, beside
// its content.
type Arrival struct {
	// Source is the datagram's IPv6 source address: the client's
	// link-local address for a message it sent on the server's link, a
	// relay's address for a relayed one.
	Source netip.Addr
	// FrameMAC is the Ethernet source address of the frame, and HasFrame
	// whether the caller read it (a packet socket gives it, a UDP socket
	// does not).
	FrameMAC leasestore.MAC
	HasFrame bool
	// Unicast is whether the datagram was sent to a unicast address of
	// the server rather than to All_DHCP_Relay_Agents_and_Servers.
	Unicast bool
}

// ClientMACs returns the candidate MACs of the client that sent the
// message of p, in the order the decision tries them; the decision serves
// the lease of the FIRST that has one:
//
//  1. the MAC inside the client's DUID-LLT or DUID-LL of hardware type 1
//     (dhclient, dhcpcd and perfdhcp send a DUID-LLT of the interface's
//     MAC): the client's own statement;
//  2. for a message on the server's own link, the Ethernet source address
//     of the frame, when the server read it (a packet socket);
//  3. for such a message, the MAC of the modified EUI-64 interface
//     identifier of its link-local source address, for a universally AND a
//     locally administered MAC: the universal/local bit is inverted back
//     whatever it is, so a KubeVirt NIC with a 02:… MAC finds its lease
//     (Kea 2.2 refuses to derive a locally administered MAC and serves a
//     pool address instead, the bug this must not have);
//  4. for a relayed message, the client link-layer address option of the
//     relay closest to the client (RFC 6939), then the EUI-64 MAC of that
//     relay's link-local peer address. The frame's MAC and the datagram's
//     source are the relay's, never the client's, and are not used. A
//     relayed message is decided at all only when it comes from a relay
//     Table.Relays lists: these options name any MAC the sender likes.
//
// Why the first with a lease rather than the first at all: a DUID-LLT is
// one per host, made from whichever NIC the host saw first, so a VM with
// two NICs sends the same DUID on both; the second NIC's lease is then
// found from its frame or link-local address, since the DUID's MAC has a
// lease on the other NIC's pool only, or none in this one. And a load
// generator such as perfdhcp, which sends one DUID-LLT per simulated
// client from one interface, gets each client's lease from its DUID,
// before the frame's MAC (the generator's own) is tried. A DUID-UUID or
// DUID-EN client (no MAC inside) is served by its frame or link-local
// address. When no candidate has a lease the client gets no address
// (NoAddrsAvail).
//
// A MAC found twice is listed once, at its first source. It does not
// allocate.
func ClientMACs(p *dhcp6wire.Packet, a Arrival) Candidates {
	var c Candidates
	if d, err := dhcp6wire.ParseDUID(p.Msg.ClientID); err == nil {
		if mac, ok := d.MAC(); ok {
			c.add(mac, SourceDUID)
		}
	}
	if len(p.Relays) == 0 {
		if a.HasFrame {
			c.add(a.FrameMAC.As6(), SourceFrame)
		}
		if mac, ok := MACFromLinkLocal(a.Source); ok {
			c.add(mac, SourceLinkLocal)
		}
		return c
	}
	r := &p.Relays[len(p.Relays)-1]
	if r.LinkLayerType == dhcp6wire.HWTypeEthernet && len(r.LinkLayerAddr) == 6 {
		c.add([6]byte(r.LinkLayerAddr), SourceRelayLinkLayer)
	}
	if mac, ok := MACFromLinkLocal(r.PeerAddr); ok {
		c.add(mac, SourceRelayPeer)
	}
	return c
}

// MACFromLinkLocal returns the MAC from which the interface identifier of
// the link-local address a was formed by the modified EUI-64 rule (RFC
// 4291 appendix A: the MAC's halves around ff:fe, with the
// universal/local bit inverted), or false when a is not a link-local
// unicast address (fe80::/10) or its identifier has no ff:fe in the
// middle. The bit is inverted back whatever its value, so a locally
// administered MAC (02:..., as KubeVirt's MAC pools give) is found as
// surely as a universal one: its link-local identifier starts with 00.
// Only link-local addresses are read: a client sends from one, and the
// identifier of a global address may be random (RFC 8981) and only look
// like an EUI-64.
func MACFromLinkLocal(a netip.Addr) ([6]byte, bool) {
	if !a.Is6() || a.Is4In6() || !a.IsLinkLocalUnicast() {
		return [6]byte{}, false
	}
	b := a.As16()
	if b[11] != 0xff || b[12] != 0xfe {
		return [6]byte{}, false
	}
	return [6]byte{b[8] ^ 0x02, b[9], b[10], b[13], b[14], b[15]}, true
}
