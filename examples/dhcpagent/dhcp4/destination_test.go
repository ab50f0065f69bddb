package dhcp4

import (
	"net"
	"net/netip"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

func TestDestination(t *testing.T) {
	udp := func(s string) *net.UDPAddr { return net.UDPAddrFromAddrPort(netip.MustParseAddrPort(s)) }
	offer := msg(t, macA, dhcpv4.MessageTypeOffer)
	nak := msg(t, macA, dhcpv4.MessageTypeNak)
	tests := []struct {
		name string
		req  *dhcpv4.DHCPv4
		resp *dhcpv4.DHCPv4
		peer net.Addr
		want string
	}{
		{"from 0.0.0.0: broadcast", discover(t, macA), offer, udp("255.255.255.255:68"), "255.255.255.255:68"},
		{"renewing: unicast to ciaddr", renewing(t, macA, addrA), offer, udp("10.77.0.10:68"), "10.77.0.10:68"},
		{"renewing via raw socket from 0.0.0.0: ciaddr", renewing(t, macA, addrA), offer, udp("255.255.255.255:68"), "10.77.0.10:68"},
		{"NAK to a renewing client: unicast to ciaddr, as Kea", renewing(t, macA, addrA), nak, udp("10.77.0.10:68"), "10.77.0.10:68"},
		{"NAK to a rebinding client (broadcast request): unicast to ciaddr", renewing(t, macA, addrA), nak, udp("255.255.255.255:68"), "10.77.0.10:68"},
		{"NAK in INIT-REBOOT: broadcast", initReboot(t, macA, addrB), nak, udp("255.255.255.255:68"), "255.255.255.255:68"},
		{"NAK in SELECTING: broadcast", selecting(t, macA, serverIP, addrB), nak, udp("255.255.255.255:68"), "255.255.255.255:68"},
		{"relayed NAK with ciaddr: to the relay, not ciaddr", msg(t, macA, dhcpv4.MessageTypeRequest, dhcpv4.WithClientIP(netIP(addrA)), dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))), nak, udp("10.0.0.1:67"), "10.0.0.1:67"},
		{"ACK to an INFORM: unicast to ciaddr", msg(t, macUnknown, dhcpv4.MessageTypeInform, dhcpv4.WithClientIP(netIP(addrA))), msg(t, macUnknown, dhcpv4.MessageTypeAck), udp("10.77.0.10:68"), "10.77.0.10:68"},
		{"relayed: to the relay", msg(t, macA, dhcpv4.MessageTypeDiscover, dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))), offer, udp("10.0.0.1:67"), "10.0.0.1:67"},
		{"relayed NAK: to the relay", msg(t, macA, dhcpv4.MessageTypeRequest, dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))), nak, udp("10.0.0.1:67"), "10.0.0.1:67"},
		{"client on another port: back to it", discover(t, macA), offer, udp("127.0.0.1:40000"), "127.0.0.1:40000"},
		{"NAK to a client on another port: back to it", renewing(t, macA, addrA), nak, udp("127.0.0.1:40000"), "127.0.0.1:40000"},
		{"broadcast source on another port: broadcast to 68", discover(t, macA), offer, udp("255.255.255.255:40000"), "255.255.255.255:68"},
		{"not UDP: by the request alone", discover(t, macA), offer, &net.IPAddr{IP: net.IPv4(1, 2, 3, 4)}, "255.255.255.255:68"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Destination(tt.req, tt.resp, tt.peer).String(); got != tt.want {
				t.Errorf("Destination = %s, want %s", got, tt.want)
			}
		})
	}
}
