package agent

import (
	"net"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// Ports of BOOTP and DHCP (RFC 2131, section 4.1).
const (
	ServerPort = 67
	ClientPort = 68
)

// Destination is where the agent sends resp, its reply to req, which arrived
// from peer (as server4 reports it: the broadcast address when the client
// sent from 0.0.0.0). It follows RFC 2131 section 4.1, with one addition
// for clients that are not on port 68:
//
//  1. giaddr set: to the relay, giaddr port 67.
//  2. peer is a unicast address on a port other than 68: back to peer. A
//     standard client always sends from port 68, so this is a test or a
//     probing tool on an ordinary socket; answering at its source is the
//     only way it can hear the reply.
//  3. NAK: broadcast, 255.255.255.255 port 68; the client's notion of its
//     address is wrong, so unicast to it may go nowhere.
//  4. ciaddr set (RENEWING, REBINDING): unicast to ciaddr port 68.
//  5. Otherwise broadcast, 255.255.255.255 port 68. RFC 2131 also allows
//     unicast to yiaddr and chaddr when the broadcast bit is clear, but a UDP
//     socket cannot address a host that has no IP address yet, and every
//     client accepts the broadcast.
func Destination(req, resp *dhcpv4.DHCPv4, peer net.Addr) *net.UDPAddr {
	if gi := ipv4(req.GatewayIPAddr); gi.IsValid() && !gi.IsUnspecified() {
		return &net.UDPAddr{IP: netIP(gi), Port: ServerPort}
	}
	if p, ok := peer.(*net.UDPAddr); ok && p.Port != ClientPort {
		if ip := ipv4(p.IP); ip.IsValid() && !ip.IsUnspecified() && ip != limitedBroadcast {
			return &net.UDPAddr{IP: netIP(ip), Port: p.Port}
		}
	}
	if resp.MessageType() != dhcpv4.MessageTypeNak {
		if ci := ipv4(req.ClientIPAddr); ci.IsValid() && !ci.IsUnspecified() {
			return &net.UDPAddr{IP: netIP(ci), Port: ClientPort}
		}
	}
	return &net.UDPAddr{IP: net.IPv4bcast, Port: ClientPort}
}
