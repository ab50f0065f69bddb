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
// message of p, in the order the decision tries them (see the package
// documentation): the MAC in its DUID-LLT or DUID-LL; for a message on
// the server's own link, the frame's source MAC and the MAC of its EUI-64
// link-local source address; for a relayed one, the client link-layer
// address and the EUI-64 link-local peer address of the relay closest to
// the client. A MAC found twice is listed once, at its first source. It
// does not allocate.
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
