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
//     unless that address is on probation (t.Probation at t.Now, after a DECLINE):
//     nothing.
//   - REQUEST that names the lease's address (requested IP address option in
//     SELECTING and INIT-REBOOT, ciaddr in RENEWING and REBINDING): an ACK,
//     or a NAK while the address is on probation after another client's
//     decline. While it is on probation after a
//     decline in this client's own name, an ACK: a client that declined
//     an address never asks to keep it, so the REQUEST shows that the
//     decline was someone else's (the Agent then lifts the probation).
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
//
// Each reply is newly allocated (its message, options map and option
// values), the caller's to keep and change; Agent.Handle builds its
// replies in reused memory instead, by the same code.
func ReplyTo(req *dhcpv4.DHCPv4, t Table) (*dhcpv4.DHCPv4, Trim, error) {
	return replyTo(nil, req, t)
}

// replyTo is ReplyTo, building the reply in s, or in a new replyScratch
// when s is nil: the one decision path of ReplyTo and of Handle, which
// reuses s.
func replyTo(s *replyScratch, req *dhcpv4.DHCPv4, t Table) (*dhcpv4.DHCPv4, Trim, error) {
	return decide(s, req, t, nil)
}

// ackNote is what the Agent learns from an ACK to a REQUEST (see
// Agent.acked): the lease's address and MAC, whether the REQUEST bound
// the address (ciaddr zero: SELECTING or INIT-REBOOT, after which a client
// may probe and decline), and whether the address was on probation after
// a decline in the client's own name.
type ackNote struct {
	addr       netip.Addr
	mac        leasestore.MAC
	binding    bool
	ownDecline bool
}

// decide is replyTo, and fills ack (when not nil) for an ACK to a REQUEST.
func decide(s *replyScratch, req *dhcpv4.DHCPv4, t Table, ack *ackNote) (*dhcpv4.DHCPv4, Trim, error) {
	mac, err := client(req, t)
	if err != nil {
		return nil, Trim{}, err
	}
	server := serverOf(t)
	if !t.Prefix.Addr().Is4() || !server.Is4() {
		return nil, Trim{}, fmt.Errorf("%w: pool %s, server %s", ErrNotIPv4, t.Prefix, server)
	}
	typ := messageTypeOf(req)
	if typ == dhcpv4.MessageTypeInform {
		return inform(s, req, t, mac)
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
		resp, trim = grant(s, req, t, lease, dhcpv4.MessageTypeOffer)
	case dhcpv4.MessageTypeRequest:
		asked, err := requestedAddr(req, server)
		if err != nil {
			return nil, Trim{}, fmt.Errorf("%w: %s", err, mac)
		}
		switch {
		case !known && !t.Prefix.Contains(asked):
			return nil, Trim{}, fmt.Errorf("%w: %s asks for %s, outside %s", ErrUnknownClient, mac, asked, t.Prefix)
		case !known || asked != lease.Addr:
			var text [64]byte
			resp, trim = nak(s, req, server, notLeased(text[:0], asked, mac))
		case t.held(asked) && !t.declinedBy(asked, mac):
			var text [64]byte
			resp, trim = nak(s, req, server, onProbation(text[:0], asked))
		default:
			// Also when the address is on probation after a decline in
			// this client's name: a client that declined an address never
			// asks to keep it, so the REQUEST shows the decline was not
			// its own.
			resp, trim = grant(s, req, t, lease, dhcpv4.MessageTypeAck)
			if ack != nil {
				*ack = ackNote{addr: lease.Addr, mac: mac, binding: isZero4(req.ClientIPAddr)}
				ack.ownDecline = t.held(asked)
			}
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
	if sid := optionAddr(req, dhcpv4.OptionServerIdentifier); sid.IsValid() && sid != server {
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

// messageTypeOf is m.MessageType() without its allocations: option 53 of
// exactly one byte, or MessageTypeNone.
func messageTypeOf(m *dhcpv4.DHCPv4) dhcpv4.MessageType {
	if v := m.Options[dhcpv4.OptionDHCPMessageType.Code()]; len(v) == 1 {
		return dhcpv4.MessageType(v[0])
	}
	return dhcpv4.MessageTypeNone
}

// grant is the OFFER or ACK of lease, fitted to the client's limit, built
// in s.
func grant(s *replyScratch, req *dhcpv4.DHCPv4, t Table, lease leasestore.Lease, typ dhcpv4.MessageType) (*dhcpv4.DHCPv4, Trim) {
	s = s.orNew()
	mandatory, optional, size := t.options.encoded(lease)
	resp := s.start(req, 1+size+echoesLen(req))
	resp.YourIPAddr = s.addr(yiaddr, lease.Addr)
	if typ == dhcpv4.MessageTypeAck {
		// Table 3: an ACK echoes ciaddr; an OFFER and a NAK carry zero.
		resp.ClientIPAddr = s.ip4OrZero(ciaddr, req.ClientIPAddr)
	}
	var room [14]part // every option a reply may carry, so that parts need not be allocated
	parts := room[:0]
	parts = append(parts, s.messageType(typ))
	parts = s.own(parts, mandatory...)
	parts = echoes(s, parts, req)
	parts = s.own(parts, optional...)
	return resp, fit(resp, parts, ReplyLimit(req))
}

// inform is the ACK to an INFORM from mac: the pool's options for a client
// that configured its address itself (RFC 2131 section 4.3.5).
func inform(s *replyScratch, req *dhcpv4.DHCPv4, t Table, mac leasestore.MAC) (*dhcpv4.DHCPv4, Trim, error) {
	ci := ipv4(req.ClientIPAddr)
	if !ci.IsValid() || ci.IsUnspecified() || !t.Prefix.Contains(ci) {
		return nil, Trim{}, fmt.Errorf("%w: INFORM from %s with ciaddr %s, outside %s", ErrNotServed, mac, ci, t.Prefix)
	}
	mandatory, optional, size := t.options.encoded(leasestore.Lease{MAC: mac, Addr: ci, Prefix: t.Prefix, Options: t.Options})
	s = s.orNew()
	resp := s.start(req, 1+size+echoesLen(req))
	// Table 3: the ACK to an INFORM echoes ciaddr, and yiaddr stays zero.
	resp.ClientIPAddr = s.ip4OrZero(ciaddr, req.ClientIPAddr)
	var room [14]part
	parts := room[:0]
	parts = append(parts, s.messageType(dhcpv4.MessageTypeAck))
	for _, p := range mandatory {
		switch p.code {
		case dhcpv4.OptionIPAddressLeaseTime.Code(), dhcpv4.OptionRenewTimeValue.Code(), dhcpv4.OptionRebindingTimeValue.Code():
			// RFC 2131 section 4.3.5: the server MUST NOT send a lease time.
		default:
			parts = s.own(parts, p)
		}
	}
	parts = echoes(s, parts, req)
	parts = s.own(parts, optional...)
	return resp, fit(resp, parts, ReplyLimit(req)), nil
}

// nak refuses a REQUEST with the message text. It carries only the server
// identifier and the message (RFC 2131, table 3), and asks a relay to
// broadcast it (section 4.1).
func nak(s *replyScratch, req *dhcpv4.DHCPv4, server netip.Addr, text []byte) (*dhcpv4.DHCPv4, Trim) {
	s = s.orNew()
	resp := s.start(req, 1+4+echoesLen(req)+len(text))
	if !resp.GatewayIPAddr.IsUnspecified() {
		resp.SetBroadcast()
	}
	sid4 := server.As4()
	sid := whole(dhcpv4.OptionServerIdentifier.Code(), s.take(sid4[:]))
	sid.mandatory = true
	var room [5]part
	parts := append(room[:0], s.messageType(dhcpv4.MessageTypeNak), sid)
	parts = echoes(s, parts, req)
	parts = append(parts, whole(dhcpv4.OptionMessage.Code(), s.take(text)))
	return resp, fit(resp, parts, ReplyLimit(req))
}

// notLeased appends the text of the NAK of a REQUEST for asked, which the
// table does not lease to the client mac: "10.0.0.7 is not leased to
// 52:54:00:aa:bb:cc".
func notLeased(b []byte, asked netip.Addr, mac leasestore.MAC) []byte {
	b = asked.AppendTo(b)
	b = append(b, " is not leased to "...)
	b, _ = mac.AppendText(b)
	return b
}

// onProbation appends the text of the NAK of a REQUEST for asked, which
// is on probation: "10.0.0.7 was declined and is on probation".
func onProbation(b []byte, asked netip.Addr) []byte {
	return append(asked.AppendTo(b), " was declined and is on probation"...)
}

// messageType is the message type option of a reply, its byte in s.
func (s *replyScratch) messageType(typ dhcpv4.MessageType) part {
	p := whole(dhcpv4.OptionDHCPMessageType.Code(), s.take([]byte{byte(typ)}))
	p.mandatory = true
	return p
}

// echoCodes are the options of a request a reply copies back whole, in
// the order a reply keeps them: relay agent information (RFC 3046), then
// the client identifier (RFC 6842).
var echoCodes = [...]uint8{optionRelayInfo, dhcpv4.OptionClientIdentifier.Code()}

// echoes appends to parts the options of req a reply copies back (see
// echoCodes), their values copied to s.
func echoes(s *replyScratch, parts []part, req *dhcpv4.DHCPv4) []part {
	for _, code := range echoCodes {
		if v := req.Options[code]; v != nil {
			parts = append(parts, whole(code, s.take(v)))
		}
	}
	return parts
}

// echoesLen is the bytes of the options echoes copies.
func echoesLen(req *dhcpv4.DHCPv4) int {
	n := 0
	for _, code := range echoCodes {
		n += len(req.Options[code])
	}
	return n
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

// isZero4 reports whether ip is absent or 0.0.0.0.
func isZero4(ip net.IP) bool {
	a := ipv4(ip)
	return !a.IsValid() || a.IsUnspecified()
}

var limitedBroadcast = netip.AddrFrom4([4]byte{255, 255, 255, 255})
