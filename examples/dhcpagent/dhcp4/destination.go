package dhcp4

import (
	"net"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// Ports of BOOTP and DHCP (RFC 2131, section 4.1).
const (
	ServerPort = 67
	ClientPort = 68
)

// Destination is where the agent sends resp, its reply to req, which arrived
// from peer (as Serve reports it: the broadcast address when the client
// sent from 0.0.0.0). It follows RFC 2131 section 4.1 as Kea does, with one
// addition for clients that are not on port 68:
//
//  1. giaddr set: to the relay, giaddr port 67; a NAK asks the relay to
//     broadcast it (the reply's broadcast flag).
//  2. peer is a unicast address on a port other than 68: back to peer. A
//     standard client always sends from port 68, so this is a test or a
//     probing tool on an ordinary socket; answering at its source is the
//     only way it can hear the reply.
//  3. ciaddr set (RENEWING, REBINDING, INFORM): unicast to ciaddr port 68,
//     a NAK included. RFC 2131 says to broadcast every NAK that does not go
//     through a relay, but a client in RENEWING holds its address and
//     need not listen to broadcasts: dhcpcd does not, and keeps a moved
//     address until REBINDING unless the NAK comes to ciaddr, as Kea sends
//     it. The agent falls back to the broadcast when the unicast cannot be
//     sent (see the agent's Handle).
//  4. Otherwise broadcast, 255.255.255.255 port 68. RFC 2131 also allows
//     unicast to yiaddr and chaddr when the broadcast bit is clear, but a UDP
//     socket cannot address a host that has no IP address yet, and every
//     client accepts the broadcast.
//
// It allocates the returned address; the agent itself decides with
// netip.AddrPort values and does not.
func Destination(req, resp *dhcpv4.DHCPv4, peer net.Addr) *net.UDPAddr {
	return net.UDPAddrFromAddrPort(DestinationOf(req, AddrPortOf(peer)))
}

// DestinationOf is Destination with address values, as a server that
// allocates nothing per packet decides it: peer as [AddrPortOf] gives it.
func DestinationOf(req *dhcpv4.DHCPv4, peer netip.AddrPort) netip.AddrPort {
	if gi := ipv4(req.GatewayIPAddr); gi.IsValid() && !gi.IsUnspecified() {
		return netip.AddrPortFrom(gi, ServerPort)
	}
	if ip := peer.Addr().Unmap(); peer.Port() != ClientPort && ip.Is4() && !ip.IsUnspecified() && ip != limitedBroadcast {
		return netip.AddrPortFrom(ip, peer.Port())
	}
	if ci := ipv4(req.ClientIPAddr); ci.IsValid() && !ci.IsUnspecified() {
		return netip.AddrPortFrom(ci, ClientPort)
	}
	return broadcast
}

// broadcast is the limited broadcast address on the client port.
var broadcast = netip.AddrPortFrom(limitedBroadcast, ClientPort)

// Broadcast is the limited broadcast address, 255.255.255.255, on the
// client port: where a reply goes that has no other destination.
func Broadcast() netip.AddrPort { return broadcast }

// AddrPortOf is a *net.UDPAddr as a netip.AddrPort, IPv4 unmapped; any
// other net.Addr is the zero AddrPort.
func AddrPortOf(a net.Addr) netip.AddrPort {
	u, ok := a.(*net.UDPAddr)
	if !ok || u == nil {
		return netip.AddrPort{}
	}
	ap := u.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}
