package dhcp4wire

import (
	"net"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
)

// Clients' MACs (package agent's tests use the same).
const (
	macA = "52:54:00:aa:00:01"
	macB = "52:54:00:aa:00:02"
)

func hw(t fataler, mac string) net.HardwareAddr {
	t.Helper()
	h, err := net.ParseMAC(mac)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// fataler is what the message builders need of a *testing.T or a
// *testing.F.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

var xid = dhcpv4.TransactionID{0xde, 0xad, 0xbe, 0xef}

// msg is a client message from mac; unlike dhcpv4.New it draws no random
// transaction ID, so building one is cheap and deterministic.
func msg(t fataler, mac string, typ dhcpv4.MessageType, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
	t.Helper()
	m := &dhcpv4.DHCPv4{
		OpCode:        dhcpv4.OpcodeBootRequest,
		HWType:        iana.HWTypeEthernet,
		TransactionID: xid,
		ClientIPAddr:  net.IPv4zero,
		YourIPAddr:    net.IPv4zero,
		ServerIPAddr:  net.IPv4zero,
		GatewayIPAddr: net.IPv4zero,
		ClientHWAddr:  hw(t, mac),
		Options:       make(dhcpv4.Options),
	}
	dhcpv4.WithMessageType(typ)(m)
	for _, mod := range mods {
		mod(m)
	}
	return m
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
