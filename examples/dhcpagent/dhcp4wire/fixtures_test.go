package dhcp4wire

import (
	"net"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
)

// Clients' MACs (package agent's tests use the same).
const (
	macA = "52:54:00:aa:00:01"
	macB = "52:54:00:aa:00:02"
)

// The message builders are dhcp4test's, shared with the other package's
// tests.
type fataler = dhcp4test.Fataler

var xid = dhcp4test.XID

func hw(t fataler, mac string) net.HardwareAddr { t.Helper(); return dhcp4test.HW(t, mac) }

func msg(t fataler, mac string, typ dhcpv4.MessageType, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
	t.Helper()
	return dhcp4test.Message(t, mac, typ, mods...)
}

func discover(t fataler, mac string) *dhcpv4.DHCPv4 {
	return msg(t, mac, dhcpv4.MessageTypeDiscover)
}

// The server and a client's address (package agent's lab pool).
var (
	serverIP = netip.MustParseAddr("10.77.0.2")
	addrA    = netip.MustParseAddr("10.77.0.10")
)

func netIP(a netip.Addr) net.IP { return net.IP(a.AsSlice()) }

// renewing is a REQUEST in the RENEWING or REBINDING state: ciaddr set, no
// server identifier or requested IP address.
func renewing(t fataler, mac string, ciaddr netip.Addr) *dhcpv4.DHCPv4 {
	return msg(t, mac, dhcpv4.MessageTypeRequest, dhcpv4.WithClientIP(netIP(ciaddr)))
}

// decline is a DECLINE of addr from mac to serverIP.
func decline(t fataler, mac string, addr netip.Addr) *dhcpv4.DHCPv4 {
	return msg(t, mac, dhcpv4.MessageTypeDecline,
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(netIP(serverIP))),
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(addr))))
}
