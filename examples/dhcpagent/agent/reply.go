package agent

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Reply builds the agent's answer to one client message from the lease table
// store, or returns nil and an error that says why the agent stays silent
// (one of the Err values of this package, wrapped with the client's MAC
// once it is known).
// It does no I/O and keeps no state: the same request and table give the
// same reply, byte for byte.
//
// The client is identified by its hardware address alone; a client
// identifier option is copied back (RFC 6842) but never used as a key,
// because the pool records MACs.
//
//   - DISCOVER from a MAC with a lease: an OFFER of the lease's address.
//   - REQUEST that names the lease's address (requested IP address option in
//     SELECTING and INIT-REBOOT, ciaddr in RENEWING and REBINDING): an ACK.
//   - REQUEST that names any other address: a NAK (RFC 2131, section 4.3.2),
//     which sends the client back to DISCOVER, where it is offered the
//     lease's address. The agent never ACKs an address the client did not
//     ask for: a client in RENEWING keeps using ciaddr whatever yiaddr says.
//   - REQUEST in SELECTING whose server identifier is another server's:
//     nothing, the client chose that server.
//   - Anything from a MAC without a lease, and every other message type:
//     nothing.
//
// OFFER and ACK carry exactly the lease's options; see [LeaseOptions].
func Reply(req *dhcpv4.DHCPv4, store *leasestore.Store) (*dhcpv4.DHCPv4, error) {
	if store == nil {
		return nil, ErrNoTable
	}
	if req == nil || req.OpCode != dhcpv4.OpcodeBootRequest {
		return nil, ErrNotRequest
	}
	if req.HWType != iana.HWTypeEthernet || len(req.ClientHWAddr) != 6 {
		return nil, fmt.Errorf("%w: %q", ErrHardwareAddr, req.ClientHWAddr.String())
	}
	mac, err := leasestore.MACFrom(req.ClientHWAddr)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHardwareAddr, err)
	}
	lease, ok := store.Lookup(mac)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownClient, mac)
	}
	server := serverID(lease)
	if !lease.Addr.Is4() || !server.Is4() {
		return nil, fmt.Errorf("%w: %s has %s", ErrNotIPv4, mac, lease.Addr)
	}

	switch t := req.MessageType(); t {
	case dhcpv4.MessageTypeDiscover:
		return grant(req, lease, dhcpv4.MessageTypeOffer), nil
	case dhcpv4.MessageTypeRequest:
		asked, err := requestedAddr(req, server)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", err, mac)
		}
		if asked != lease.Addr {
			return nak(req, server, fmt.Sprintf("%s is not leased to %s", asked, mac)), nil
		}
		return grant(req, lease, dhcpv4.MessageTypeAck), nil
	default:
		return nil, fmt.Errorf("%w: %s from %s", ErrMessageType, t, mac)
	}
}

// requestedAddr is the address a REQUEST asks to confirm, by the client
// state RFC 2131 section 4.3.2 infers from the fields present.
func requestedAddr(req *dhcpv4.DHCPv4, server netip.Addr) (netip.Addr, error) {
	if sid := ipv4(req.ServerIdentifier()); sid.IsValid() && sid != server {
		return netip.Addr{}, ErrOtherServer // SELECTING, another server's offer
	}
	if asked := ipv4(req.RequestedIPAddress()); asked.IsValid() {
		return asked, nil // SELECTING or INIT-REBOOT
	}
	if ci := ipv4(req.ClientIPAddr); ci.IsValid() && !ci.IsUnspecified() {
		return ci, nil // RENEWING or REBINDING
	}
	return netip.Addr{}, ErrNoAddress
}

// grant is the OFFER or ACK of lease.
func grant(req *dhcpv4.DHCPv4, lease leasestore.Lease, typ dhcpv4.MessageType) *dhcpv4.DHCPv4 {
	resp := header(req)
	resp.YourIPAddr = net.IP(lease.Addr.AsSlice())
	if typ == dhcpv4.MessageTypeAck {
		// Table 3: an ACK echoes ciaddr; an OFFER and a NAK carry zero.
		resp.ClientIPAddr = ip4OrZero(req.ClientIPAddr)
	}
	resp.UpdateOption(dhcpv4.OptMessageType(typ))
	for _, o := range LeaseOptions(lease) {
		resp.UpdateOption(o)
	}
	return resp
}

// nak refuses a REQUEST. It carries only the server identifier and a
// message (RFC 2131, table 3), and asks a relay to broadcast it (section 4.1).
func nak(req *dhcpv4.DHCPv4, server netip.Addr, msg string) *dhcpv4.DHCPv4 {
	resp := header(req)
	if !resp.GatewayIPAddr.IsUnspecified() {
		resp.SetBroadcast()
	}
	resp.UpdateOption(dhcpv4.OptMessageType(dhcpv4.MessageTypeNak))
	resp.UpdateOption(dhcpv4.OptServerIdentifier(net.IP(server.AsSlice())))
	resp.UpdateOption(dhcpv4.OptMessage(msg))
	return resp
}

// header starts a BOOTREPLY to req: the fields a reply copies (RFC 2131,
// table 3), zero addresses, and the client identifier (RFC 6842) and relay
// agent information (RFC 3046) options echoed.
func header(req *dhcpv4.DHCPv4) *dhcpv4.DHCPv4 {
	resp := &dhcpv4.DHCPv4{
		OpCode:        dhcpv4.OpcodeBootReply,
		HWType:        req.HWType,
		TransactionID: req.TransactionID,
		Flags:         req.Flags,
		ClientIPAddr:  net.IPv4zero,
		YourIPAddr:    net.IPv4zero,
		ServerIPAddr:  net.IPv4zero,
		GatewayIPAddr: ip4OrZero(req.GatewayIPAddr),
		ClientHWAddr:  append(net.HardwareAddr(nil), req.ClientHWAddr...),
		Options:       make(dhcpv4.Options),
	}
	for _, code := range []dhcpv4.OptionCode{dhcpv4.OptionClientIdentifier, dhcpv4.OptionRelayAgentInformation} {
		if v := req.Options.Get(code); v != nil {
			resp.UpdateOption(dhcpv4.OptGeneric(code, append([]byte(nil), v...)))
		}
	}
	return resp
}

// ipv4 converts a 4- or 16-byte net.IP holding an IPv4 address; anything
// else is the zero Addr.
func ipv4(ip net.IP) netip.Addr {
	ip4 := ip.To4()
	if ip4 == nil {
		return netip.Addr{}
	}
	return netip.AddrFrom4([4]byte(ip4))
}

func ip4OrZero(ip net.IP) net.IP {
	if ip4 := ip.To4(); ip4 != nil {
		return append(net.IP(nil), ip4...)
	}
	return net.IPv4zero
}

var limitedBroadcast = netip.AddrFrom4([4]byte{255, 255, 255, 255})
