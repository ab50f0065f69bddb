package dhcp4

import (
	"net"
	"net/netip"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
)

func TestDestination(t *testing.T) {
	udp := func(s string) *net.UDPAddr { return net.UDPAddrFromAddrPort(netip.MustParseAddrPort(s)) }
	offer := dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeOffer)
	nak := dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeNak)
	tests := []struct {
		name string
		req  *dhcpv4.DHCPv4
		resp *dhcpv4.DHCPv4
		peer net.Addr
		want string
	}{
		{"from 0.0.0.0: broadcast", dhcp4test.Discover(t, dhcp4test.MACA), offer, udp("255.255.255.255:68"), "255.255.255.255:68"},
		{"renewing: unicast to ciaddr", dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), offer, udp("10.77.0.10:68"), "10.77.0.10:68"},
		{"renewing via raw socket from 0.0.0.0: ciaddr", dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), offer, udp("255.255.255.255:68"), "10.77.0.10:68"},
		{"NAK to a renewing client: unicast to ciaddr, as Kea", dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), nak, udp("10.77.0.10:68"), "10.77.0.10:68"},
		{"NAK to a rebinding client (broadcast request): unicast to ciaddr", dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), nak, udp("255.255.255.255:68"), "10.77.0.10:68"},
		{"NAK in INIT-REBOOT: broadcast", dhcp4test.InitReboot(t, dhcp4test.MACA, dhcp4test.AddrB), nak, udp("255.255.255.255:68"), "255.255.255.255:68"},
		{"NAK in SELECTING: broadcast", dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrB), nak, udp("255.255.255.255:68"), "255.255.255.255:68"},
		{"relayed NAK with ciaddr: to the relay, not ciaddr", dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRequest, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA)), dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))), nak, udp("10.0.0.1:67"), "10.0.0.1:67"},
		{"ACK to an INFORM: unicast to ciaddr", dhcp4test.Message(t, dhcp4test.MACUnknown, dhcpv4.MessageTypeInform, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA))), dhcp4test.Message(t, dhcp4test.MACUnknown, dhcpv4.MessageTypeAck), udp("10.77.0.10:68"), "10.77.0.10:68"},
		{"relayed: to the relay", dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))), offer, udp("10.0.0.1:67"), "10.0.0.1:67"},
		{"relayed NAK: to the relay", dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRequest, dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))), nak, udp("10.0.0.1:67"), "10.0.0.1:67"},
		{"client on another port: back to it", dhcp4test.Discover(t, dhcp4test.MACA), offer, udp("127.0.0.1:40000"), "127.0.0.1:40000"},
		{"NAK to a client on another port: back to it", dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), nak, udp("127.0.0.1:40000"), "127.0.0.1:40000"},
		{"broadcast source on another port: broadcast to 68", dhcp4test.Discover(t, dhcp4test.MACA), offer, udp("255.255.255.255:40000"), "255.255.255.255:68"},
		{"not UDP: by the request alone", dhcp4test.Discover(t, dhcp4test.MACA), offer, &net.IPAddr{IP: net.IPv4(1, 2, 3, 4)}, "255.255.255.255:68"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Destination(tt.req, tt.resp, tt.peer).String(); got != tt.want {
				t.Errorf("Destination = %s, want %s", got, tt.want)
			}
		})
	}
}
