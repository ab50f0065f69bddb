package agent

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Reply is [ReplyTo] on [TableOf](store): the lease table alone, with no
// address on probation.
func Reply(req *dhcpv4.DHCPv4, store *leasestore.Store) (*dhcpv4.DHCPv4, error) {
	resp, _, err := ReplyTo(req, TableOf(store))
	return resp, err
}

// ReplyWithTrim is [ReplyTo] on [TableOf](store).
func ReplyWithTrim(req *dhcpv4.DHCPv4, store *leasestore.Store) (*dhcpv4.DHCPv4, Trim, error) {
	return ReplyTo(req, TableOf(store))
}

// ReplyTo builds the agent's answer to one client message from the table
// t, or returns nil and an error that says why the agent stays silent (one
// of the Err values of this package, wrapped with the client's MAC once it
// is known). It also returns what the reply left out so that it fits the
// client's limit: the zero Trim when it left out nothing or there is no
// reply. It does no I/O, keeps no state and reads no clock: the same
// request and table give the same reply, byte for byte.
//
// The client is identified by its hardware address alone; a client
// identifier option is copied back (RFC 6842) but never used as a key,
// because the pool records MACs.
//
//   - DISCOVER from a MAC with a lease: an OFFER of the lease's address,
//     unless that address is on probation (t.Held, after a DECLINE):
//     nothing.
//   - REQUEST that names the lease's address (requested IP address option in
//     SELECTING and INIT-REBOOT, ciaddr in RENEWING and REBINDING): an ACK,
//     or a NAK while the address is on probation.
//   - REQUEST that names any other address: a NAK (RFC 2131, section 4.3.2),
//     which sends the client back to DISCOVER, where it is offered the
//     lease's address. The agent never ACKs an address the client did not
//     ask for: a client in RENEWING keeps using ciaddr whatever yiaddr says.
//   - REQUEST from a MAC without a lease that names an address inside
//     t.Prefix: a NAK. The agent is authoritative for the prefix it serves,
//     so a client whose MAC was removed from the pool learns at its next
//     renewal that it must stop using the address, rather than keep it
//     until the lease runs out. An address outside t.Prefix is none of the
//     agent's business: nothing.
//   - REQUEST in SELECTING whose server identifier is another server's:
//     nothing, the client chose that server.
//   - INFORM (RFC 2131 section 4.3.5) from any MAC whose ciaddr lies in
//     t.Prefix: an ACK with ciaddr echoed, yiaddr zero and the pool's
//     options (t.Options) but no lease time, renewal or rebinding time.
//   - DISCOVER from a MAC without a lease, DECLINE and RELEASE (see
//     [Declined] and [Released]), and every other message type: nothing.
//
// OFFER and ACK carry the lease's options (see [LeaseOptions]) as far as
// the client can receive them: a reply is never longer than [ReplyLimit]
// of the request. When everything does not fit, the reply keeps, in this
// order of priority:
//
//  1. the mandatory options, always: 53 message type, 54 server identifier,
//     and for an OFFER or ACK 51 lease time, 58 and 59 renewal and
//     rebinding times, 1 subnet mask and 3 router;
//  2. 82 relay agent information, the relay's option echoed whole (RFC 3046
//     forbids echoing a part of it) or not at all. A relay that requires
//     the echo may drop a reply without it, so that client gets no answer
//     through that relay; the one alternative, a reply larger than the
//     client accepts, is no answer either;
//  3. 61 client identifier, echoed whole or not at all (RFC 6842 clients
//     accept a reply without it, as they accept one from an RFC 2131
//     server);
//  4. 6 name servers, cut to as many as fit;
//  5. 15 domain name, whole or not at all;
//  6. 42 NTP servers, cut to as many as fit;
//  7. 119 domain search list, cut to as many names as fit.
//
// A NAK keeps 53 and 54, then 82 and 61, then its 56 message, whole or not
// at all. Each option gets the room its predecessors leave, so a smaller
// one further down may still fit where a larger one above it did not.
// Options 4 to 7 may also be carried in the file and sname fields with
// option overload (RFC 2132 section 9.3), a list spread over the fields in
// whole entries as RFC 3396 allows; a reply uses overload only when it then
// keeps more by this order. The mandatory options, 82 and 61 always stay in
// the options field, where relays and clients that ignore overload look
// for them.
func ReplyTo(req *dhcpv4.DHCPv4, t Table) (*dhcpv4.DHCPv4, Trim, error) {
	mac, err := client(req, t)
	if err != nil {
		return nil, Trim{}, err
	}
	server := serverOf(t)
	if !t.Prefix.Addr().Is4() || !server.Is4() {
		return nil, Trim{}, fmt.Errorf("%w: pool %s, server %s", ErrNotIPv4, t.Prefix, server)
	}
	typ := req.MessageType()
	if typ == dhcpv4.MessageTypeInform {
		return inform(req, t, mac)
	}
	lease, known := t.Leases.Lookup(mac)
	if known && !lease.Addr.Is4() {
		return nil, Trim{}, fmt.Errorf("%w: %s has %s", ErrNotIPv4, mac, lease.Addr)
	}

	var resp *dhcpv4.DHCPv4
	var trim Trim
	switch typ {
	case dhcpv4.MessageTypeDiscover:
		if !known {
			return nil, Trim{}, fmt.Errorf("%w: %s", ErrUnknownClient, mac)
		}
		if t.held(lease.Addr) {
			return nil, Trim{}, fmt.Errorf("%w: %s of %s", ErrOnProbation, lease.Addr, mac)
		}
		resp, trim = grant(req, t, lease, dhcpv4.MessageTypeOffer)
	case dhcpv4.MessageTypeRequest:
		asked, err := requestedAddr(req, server)
		if err != nil {
			return nil, Trim{}, fmt.Errorf("%w: %s", err, mac)
		}
		switch {
		case !known && !t.Prefix.Contains(asked):
			return nil, Trim{}, fmt.Errorf("%w: %s asks for %s, outside %s", ErrUnknownClient, mac, asked, t.Prefix)
		case !known || asked != lease.Addr:
			resp, trim = nak(req, server, fmt.Sprintf("%s is not leased to %s", asked, mac))
		case t.held(asked):
			resp, trim = nak(req, server, fmt.Sprintf("%s was declined and is on probation", asked))
		default:
			resp, trim = grant(req, t, lease, dhcpv4.MessageTypeAck)
		}
	default:
		return nil, Trim{}, fmt.Errorf("%w: %s from %s", ErrMessageType, typ, mac)
	}
	return resp, trim, nil
}

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

// grant is the OFFER or ACK of lease, fitted to the client's limit.
func grant(req *dhcpv4.DHCPv4, t Table, lease leasestore.Lease, typ dhcpv4.MessageType) (*dhcpv4.DHCPv4, Trim) {
	resp := header(req)
	resp.YourIPAddr = net.IP(lease.Addr.AsSlice())
	if typ == dhcpv4.MessageTypeAck {
		// Table 3: an ACK echoes ciaddr; an OFFER and a NAK carry zero.
		resp.ClientIPAddr = ip4OrZero(req.ClientIPAddr)
	}
	mandatory, optional, size := t.options.encoded(lease)
	buf := ownBuffer(size)
	var room [14]part // every option a reply may carry, so that parts need not be allocated
	parts := room[:0]
	parts = append(parts, messageType(typ))
	parts = own(parts, buf, mandatory...)
	parts = append(parts, echoes(req)...)
	parts = own(parts, buf, optional...)
	return resp, fit(resp, parts, ReplyLimit(req))
}

// inform is the ACK to an INFORM from mac: the pool's options for a client
// that configured its address itself (RFC 2131 section 4.3.5).
func inform(req *dhcpv4.DHCPv4, t Table, mac leasestore.MAC) (*dhcpv4.DHCPv4, Trim, error) {
	ci := ipv4(req.ClientIPAddr)
	if !ci.IsValid() || ci.IsUnspecified() || !t.Prefix.Contains(ci) {
		return nil, Trim{}, fmt.Errorf("%w: INFORM from %s with ciaddr %s, outside %s", ErrNotServed, mac, ci, t.Prefix)
	}
	resp := header(req)
	// Table 3: the ACK to an INFORM echoes ciaddr, and yiaddr stays zero.
	resp.ClientIPAddr = ip4OrZero(req.ClientIPAddr)
	mandatory, optional, size := t.options.encoded(leasestore.Lease{MAC: mac, Addr: ci, Prefix: t.Prefix, Options: t.Options})
	buf := ownBuffer(size)
	parts := make([]part, 0, 1+len(mandatory)+2+len(optional))
	parts = append(parts, messageType(dhcpv4.MessageTypeAck))
	for _, p := range mandatory {
		switch p.code {
		case dhcpv4.OptionIPAddressLeaseTime.Code(), dhcpv4.OptionRenewTimeValue.Code(), dhcpv4.OptionRebindingTimeValue.Code():
			// RFC 2131 section 4.3.5: the server MUST NOT send a lease time.
		default:
			parts = own(parts, buf, p)
		}
	}
	parts = append(parts, echoes(req)...)
	parts = own(parts, buf, optional...)
	return resp, fit(resp, parts, ReplyLimit(req)), nil
}

// nak refuses a REQUEST. It carries only the server identifier and a
// message (RFC 2131, table 3), and asks a relay to broadcast it (section 4.1).
func nak(req *dhcpv4.DHCPv4, server netip.Addr, msg string) (*dhcpv4.DHCPv4, Trim) {
	resp := header(req)
	if !resp.GatewayIPAddr.IsUnspecified() {
		resp.SetBroadcast()
	}
	sid := whole(dhcpv4.OptionServerIdentifier.Code(), server.AsSlice())
	sid.mandatory = true
	parts := []part{messageType(dhcpv4.MessageTypeNak), sid}
	parts = append(parts, echoes(req)...)
	parts = append(parts, whole(dhcpv4.OptionMessage.Code(), []byte(msg)))
	return resp, fit(resp, parts, ReplyLimit(req))
}

// header starts a BOOTREPLY to req: the fields a reply copies (RFC 2131,
// table 3) and zero addresses.
func header(req *dhcpv4.DHCPv4) *dhcpv4.DHCPv4 {
	return &dhcpv4.DHCPv4{
		OpCode:        dhcpv4.OpcodeBootReply,
		HWType:        req.HWType,
		TransactionID: req.TransactionID,
		Flags:         req.Flags,
		ClientIPAddr:  net.IPv4zero,
		YourIPAddr:    net.IPv4zero,
		ServerIPAddr:  net.IPv4zero,
		GatewayIPAddr: ip4OrZero(req.GatewayIPAddr),
		ClientHWAddr:  append(net.HardwareAddr(nil), req.ClientHWAddr...),
		Options:       make(dhcpv4.Options, 16), // room for every option a reply carries
	}
}

func messageType(typ dhcpv4.MessageType) part {
	p := whole(dhcpv4.OptionDHCPMessageType.Code(), []byte{byte(typ)})
	p.mandatory = true
	return p
}

// echoes are the options of req a reply copies back whole, in the order a
// reply keeps them: relay agent information (RFC 3046), then the client
// identifier (RFC 6842).
func echoes(req *dhcpv4.DHCPv4) []part {
	var parts []part
	for _, code := range []dhcpv4.OptionCode{dhcpv4.OptionRelayAgentInformation, dhcpv4.OptionClientIdentifier} {
		if v := req.Options.Get(code); v != nil {
			parts = append(parts, whole(code.Code(), append([]byte(nil), v...)))
		}
	}
	return parts
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
