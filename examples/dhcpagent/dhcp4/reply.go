package dhcp4

import (
	"fmt"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"
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
//     decline was someone else's (the agent then lifts the probation).
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
// OFFER and ACK carry the lease's options (see [dhcp4wire.LeaseOptions]) as far as
// the client can receive them: a reply is never longer than [dhcp4wire.ReplyLimit]
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
// values), the caller's to keep and change; the agent's Handle builds its
// replies in reused memory instead, by the same code.
func ReplyTo(req *dhcpv4.DHCPv4, t Table) (*dhcpv4.DHCPv4, Trim, error) {
	return replyTo(nil, req, t)
}

// replyTo is ReplyTo, building the reply in s, or in a new Scratch
// when s is nil: the one decision path of ReplyTo and of Handle, which
// reuses s.
func replyTo(s *Scratch, req *dhcpv4.DHCPv4, t Table) (*dhcpv4.DHCPv4, Trim, error) {
	return Decide(s, req, t, nil)
}

// Ack is what a server learns from an ACK to a REQUEST, to keep its own
// state (see [Decide]): the lease's address and MAC, whether the REQUEST
// bound the address (ciaddr zero: SELECTING or INIT-REBOOT, after which a
// client may probe and decline), and whether the address was on
// probation after a decline in the client's own name, which the REQUEST
// disproves. Peer is set, with Binding, for a REQUEST selecting a peer's
// offer of the address the table gives the client: the peer ACKs it
// (Decide returns ErrPeerSelected), and the client may then decline it to
// either server.
type Ack struct {
	Addr       netip.Addr
	MAC        leasestore.MAC
	Binding    bool
	OwnDecline bool
	Peer       bool
}

// Decide is ReplyTo with the reply built in s, valid until s is used
// again (a nil s: a new Scratch, as ReplyTo), and, for an ACK to a
// REQUEST, ack filled in when it is not nil. It is the one decision path
// of ReplyTo and of a server that reuses its Scratch values per packet.
func Decide(s *Scratch, req *dhcpv4.DHCPv4, t Table, ack *Ack) (*dhcpv4.DHCPv4, Trim, error) {
	mac, err := client(req, t)
	if err != nil {
		return nil, Trim{}, err
	}
	server := serverOf(t)
	if !t.Prefix.Addr().Is4() || !server.Is4() {
		return nil, Trim{}, fmt.Errorf("%w: pool %s, server %s", ErrNotIPv4, t.Prefix, server)
	}
	typ := MessageTypeOf(req)
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
		asked, err := requestedAddr(req, t)
		if err == ErrPeerSelected && known && asked == lease.Addr && !t.held(asked) && ack != nil {
			*ack = Ack{Addr: asked, MAC: mac, Binding: true, Peer: true}
		}
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
				*ack = Ack{Addr: lease.Addr, MAC: mac, Binding: isZero4(req.ClientIPAddr)}
				ack.OwnDecline = t.held(asked)
			}
		}
	default:
		return nil, Trim{}, fmt.Errorf("%w: %s from %s", ErrMessageType, typ, mac)
	}
	return resp, trim, nil
}
