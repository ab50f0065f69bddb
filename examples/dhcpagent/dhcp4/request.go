package dhcp4

import (
	"fmt"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// client checks what every answer needs: a table, a BOOTREQUEST, an
// Ethernet MAC; and returns the MAC.
func client(req *dhcpv4.DHCPv4, t Table) (leasestore.MAC, error) {
	if t.Leases == nil {
		return leasestore.MAC{}, ErrNoTable
	}
	if req == nil || req.OpCode != dhcpv4.OpcodeBootRequest {
		return leasestore.MAC{}, ErrNotRequest
	}
	if req.HWType != iana.HWTypeEthernet || len(req.ClientHWAddr) != 6 {
		return leasestore.MAC{}, fmt.Errorf("%w: %q", ErrHardwareAddr, req.ClientHWAddr.String())
	}
	mac, err := leasestore.MACFrom(req.ClientHWAddr)
	if err != nil {
		return leasestore.MAC{}, fmt.Errorf("%w: %v", ErrHardwareAddr, err)
	}
	return mac, nil
}

// requestedAddr is the address a REQUEST asks to confirm, by the client
// state RFC 2131 section 4.3.2 infers from the fields present. A REQUEST
// selecting a peer's offer gives the address it asks for with
// ErrPeerSelected.
func requestedAddr(req *dhcpv4.DHCPv4, t Table) (netip.Addr, error) {
	if sid := optionAddr(req, dhcpv4.OptionServerIdentifier); sid.IsValid() && sid != serverOf(t) {
		if t.peer(sid) {
			return optionAddr(req, dhcpv4.OptionRequestedIPAddress), ErrPeerSelected
		}
		return netip.Addr{}, ErrOtherServer // SELECTING, another server's offer
	}
	if asked := optionAddr(req, dhcpv4.OptionRequestedIPAddress); asked.IsValid() {
		return asked, nil // SELECTING or INIT-REBOOT
	}
	if ci := ipv4(req.ClientIPAddr); ci.IsValid() && !ci.IsUnspecified() {
		return ci, nil // RENEWING or REBINDING
	}
	return netip.Addr{}, ErrNoAddress
}

// optionAddr is the IPv4 address option code of m holds, or the zero Addr
// when it is absent or not 4 bytes long: what ipv4(dhcpv4.GetIP(code,
// m.Options)) is, without GetIP's allocations.
func optionAddr(m *dhcpv4.DHCPv4, code dhcpv4.OptionCode) netip.Addr {
	if v := m.Options[code.Code()]; len(v) == 4 {
		return netip.AddrFrom4([4]byte(v))
	}
	return netip.Addr{}
}

// MessageTypeOf is m.MessageType() without its allocations: option 53 of
// exactly one byte, or MessageTypeNone.
func MessageTypeOf(m *dhcpv4.DHCPv4) dhcpv4.MessageType {
	if v := m.Options[dhcpv4.OptionDHCPMessageType.Code()]; len(v) == 1 {
		return dhcpv4.MessageType(v[0])
	}
	return dhcpv4.MessageTypeNone
}
