// Package dhcp4test is what the DHCPv4 tests of the agent, its decision
// (dhcp4) and its wire codec share, so that they build and read messages
// one way: the client messages they send, the lab pool's lease table, and
// a comparable view of a reply. Only tests import it.
package dhcp4test

import (
	"net"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
)

// Fataler is what the builders need of a *testing.T, a *testing.F or a
// *rapid.T.
type Fataler interface {
	Helper()
	Fatal(args ...any)
}

// XID is the transaction ID of every message Message builds.
var XID = dhcpv4.TransactionID{0xde, 0xad, 0xbe, 0xef}

// HW parses mac, failing t if it is not a MAC.
func HW(t Fataler, mac string) net.HardwareAddr {
	t.Helper()
	h, err := net.ParseMAC(mac)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Message is a client message of type typ from mac, with mods applied;
// unlike dhcpv4.New it draws no random transaction ID, so building one is
// cheap and deterministic.
func Message(t Fataler, mac string, typ dhcpv4.MessageType, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
	t.Helper()
	m := &dhcpv4.DHCPv4{
		OpCode:        dhcpv4.OpcodeBootRequest,
		HWType:        iana.HWTypeEthernet,
		TransactionID: XID,
		ClientIPAddr:  net.IPv4zero,
		YourIPAddr:    net.IPv4zero,
		ServerIPAddr:  net.IPv4zero,
		GatewayIPAddr: net.IPv4zero,
		ClientHWAddr:  HW(t, mac),
		Options:       make(dhcpv4.Options),
	}
	dhcpv4.WithMessageType(typ)(m)
	for _, mod := range mods {
		mod(m)
	}
	return m
}
