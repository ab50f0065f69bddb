package dhcp6

import (
	"errors"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Reasons Decide gives no reply. They are plain values, not formatted per
// message, so that a flood of messages the server must drop costs no
// allocation.
var (
	ErrNoServerID = errors.New("dhcp6: the table has no server DUID")
	// ErrMessageType: a message a server does not answer (ADVERTISE,
	// REPLY, RECONFIGURE, a RELAY-REPL, an unknown type).
	ErrMessageType = errors.New("dhcp6: message type a server does not answer")
	// ErrClientIDMissing: a message that must carry a CLIENTID does not.
	ErrClientIDMissing = errors.New("dhcp6: no client identifier")
	// ErrServerIDMissing: a REQUEST, RENEW, RELEASE or DECLINE without a
	// SERVERID (RFC 8415 section 16).
	ErrServerIDMissing = errors.New("dhcp6: no server identifier")
	// ErrServerIDUnexpected: a SOLICIT, CONFIRM or REBIND with a
	// SERVERID (RFC 8415 section 16).
	ErrServerIDUnexpected = errors.New("dhcp6: server identifier in a message sent to all servers")
	// ErrOtherServer: the message's SERVERID is another server's.
	ErrOtherServer = errors.New("dhcp6: message for another server")
	// ErrUnicast: a SOLICIT, CONFIRM, REBIND or INFORMATION-REQUEST sent
	// to a unicast address; those go to all servers.
	ErrUnicast = errors.New("dhcp6: message sent by unicast that must be multicast")
	// ErrInformationIA: an INFORMATION-REQUEST with an IA (RFC 8415
	// section 16.12).
	ErrInformationIA = errors.New("dhcp6: information request with an IA")
	// ErrNothingToConfirm: a CONFIRM without an address, or a REBIND from
	// a client without a lease that names no address: the server has
	// nothing to say (RFC 8415 sections 18.3.3 and 18.3.5).
	ErrNothingToConfirm = errors.New("dhcp6: no address to confirm")
)

// Status messages of the replies: fixed, so that a reply allocates none.
var (
	textNoAddrs     = []byte("no address for this client")
	textOnProbation = []byte("address on probation after a decline")
	textNoBinding   = []byte("no binding for this IA")
	textNotOnLink   = []byte("address not on this link")
	textOnLink      = []byte("all addresses on link")
	textReleased    = []byte("released")
	textDeclined    = []byte("declined")
	textMulticast   = []byte("send to all servers")
)

// Decision is what the server learns from one answer beside the reply.
type Decision struct {
	// Type is the reply's message type: ADVERTISE or REPLY.
	Type dhcp6wire.MessageType
	// Client is the candidate MAC whose lease decided (see ClientMACs),
	// and Lease that lease; a zero Client.Source when no candidate had
	// one, or the message needed none.
	Client Candidate
	Lease  leasestore.Lease
	// Bound is true when the reply commits Lease.Addr to the client: a
	// REPLY to REQUEST, RENEW or REBIND, or to a Rapid Commit SOLICIT,
	// with the lease's address at non-zero lifetimes.
	Bound bool
	// Lifted is true when that binding was of an address on probation
	// after a decline in the client's own name: the client asks to keep
	// the address it declined, so the decline was not its own and the
	// server lifts the probation.
	Lifted bool
	// Released is the lease's address when a RELEASE named it.
	Released netip.Addr
	// Declined is the lease's address when a DECLINE named it: the
	// server puts it on probation in Client.MAC's name, subject to its
	// own rule (see Decide).
	Declined netip.Addr
}

// Decide builds into r the server's answer to the client message in req
// (unwrapping its RELAY-FORW headers, wrapping the reply in RELAY-REPL
// headers), from the table t, or returns an error that says why the
// server stays silent. a is how the datagram arrived. It does no I/O,
// keeps no state and reads no clock: the same request, arrival and table
// give the same reply, byte for byte. With a reused r it does not
// allocate. The answers (RFC 8415 section 18.3):
//
//   - SOLICIT: an ADVERTISE of the lease's address at the pool's lifetimes
//     (leasestore.Options.Lifetimes, DefaultValidLifetime when unset) in
//     the IA_NA that names it, or the first; a REPLY that commits it
//     (Decision.Bound) when the client sent Rapid Commit and
//     Table.RapidCommit allows it. With no lease, its address on
//     probation, or no IA_NA asked: an ADVERTISE holding only the status
//     NoAddrsAvail (with the server and client identifiers), as section
//     18.3.9 asks of a server that will assign no address. RFC 8415 lets a
//     server stay silent instead; answering tells the client at once,
//     and costs one datagram per solicitation that would otherwise be
//     retransmitted anyway.
//   - REQUEST, RENEW, REBIND: a REPLY with the binding. An address the IA
//     names that is not the lease's (the pool moved the NIC's address) is
//     returned beside it at lifetimes 0, so the client drops it. Without a
//     lease: REQUEST gets NoAddrsAvail in each IA, RENEW NoBinding, and
//     REBIND, since the server is authoritative for its prefix, NotOnLink
//     for an IA that names an address off Table.Prefix and NoBinding for
//     one that names only addresses on it, each address at lifetimes 0; a
//     REBIND that leaves nothing to say gets no reply.
//   - CONFIRM: Success when every address it names is on Table.Prefix,
//     NotOnLink otherwise; no reply when it names none.
//   - RELEASE and DECLINE: Success; an IA that does not name the client's
//     lease address comes back with NoBinding. Decision.Released or
//     Declined tells the server the address.
//   - INFORMATION-REQUEST: the requested options only, to any client,
//     with or without a lease.
//
// Each ADVERTISE and REPLY echoes the transaction id and the CLIENTID,
// carries the server's DUID, each IA its IAID with T1 and T2 at 0.5 and
// 0.8 of the preferred lifetime (both infinite with it), and the DNS
// servers (23) and search list (24) when the client's ORO asks for them
// and the pool sets them. A relayed message is answered inside RELAY-REPL
// headers that mirror the RELAY-FORW ones, each interface-id echoed.
//
// No reply, and an Err value that says why (RFC 8415 section 16), for: a
// message type a server does not answer; no CLIENTID (except INFORMATION-REQUEST); a SERVERID
// in a SOLICIT, CONFIRM or REBIND; none in a REQUEST, RENEW, RELEASE or
// DECLINE; another server's SERVERID; an INFORMATION-REQUEST with an
// IA_NA. The server never sends the Server Unicast option, so a REQUEST,
// RENEW, RELEASE or DECLINE that reached it by unicast (Arrival.Unicast,
// for a message that was not relayed) gets a REPLY with only UseMulticast,
// and a SOLICIT, CONFIRM, REBIND or INFORMATION-REQUEST by unicast is
// dropped (as Kea does): those are meant for all servers.
//
// A reply goes back to the datagram's source, so a message whose source
// cannot take one is dropped (ErrReplySource): a multicast source (a
// SOLICIT "from" ff02::1 would have its ADVERTISE sent to every node of
// the link), the unspecified or a loopback address, an IPv4 one. Only
// unicast link-local and global (unique local included) sources are
// answered ([Replyable]). A RELAY-FORW from an address Table.Relays does
// not list is dropped (ErrUntrustedRelay), so that its options never
// choose a lease.
//
// DECLINE and probation: the DHCPv4 agent accepts a DECLINE only as far
// as a real client's behaviour explains it (docs/dhcpagent-design.md,
// "DECLINE: what a bystander cannot abuse"), and the same ideas apply
// here, split between this decision and the server. The decision accepts a DECLINE only of the address of the
// lease the client's identity selects (the same candidate MAC order as
// every other message) and only when it carries this server's DUID; it
// reports it in Decision.Declined with the MAC in whose name the address
// goes on probation. Whether the DECLINE came soon enough after the REPLY
// that bound the address (Decision.Bound: a client checks an address for
// duplicates right after it is assigned, RFC 8415 section 18.2.10.1) is
// the server's rule, since only the server remembers when it bound what.
// While the address is on probation the client's SOLICIT and a REQUEST
// that does not name it get NoAddrsAvail; a REQUEST, RENEW or REBIND from
// the decliner that names it shows the decline was not its own (a client
// never asks to keep an address it declined), so it is bound again and
// Decision.Lifted tells the server to lift the probation.
func Decide(r *Reply, req *dhcp6wire.Packet, a Arrival, t Table) (Decision, error) {
	if len(t.ServerID) == 0 {
		return Decision{}, ErrNoServerID
	}
	for i := range req.Relays {
		if req.Relays[i].Type != dhcp6wire.RelayForw {
			return Decision{}, ErrMessageType
		}
	}
	if err := checkArrival(len(req.Relays) > 0, a, &t); err != nil {
		return Decision{}, err
	}
	m := &req.Msg
	// A relay always sends by unicast; the client's own message went to
	// all servers.
	unicast := a.Unicast && len(req.Relays) == 0
	if err := validate(m, t.ServerID, unicast); err != nil {
		return Decision{}, err
	}
	if unicast && mustUseMulticast(m.Type) {
		out := r.reset(req, dhcp6wire.Reply, t.ServerID)
		out.Status = dhcp6wire.Status{Present: true, Code: dhcp6wire.UseMulticast, Message: textMulticast}
		return Decision{Type: dhcp6wire.Reply}, nil
	}
	switch m.Type {
	case dhcp6wire.InformationRequest:
		r.reset(req, dhcp6wire.Reply, t.ServerID)
		r.addOptions(m, t.Options)
		return Decision{Type: dhcp6wire.Reply}, nil
	case dhcp6wire.Confirm:
		return confirm(r, req, &t)
	}
	d := Decision{Type: dhcp6wire.Reply}
	cands := ClientMACs(req, a)
	for i := range cands.Len() {
		c := cands.At(i)
		if l, ok := t.Leases.Lookup(c.MAC); ok && l.Addr.Is6() {
			d.Client, d.Lease = c, l
			break
		}
	}
	switch m.Type {
	case dhcp6wire.Solicit:
		return solicit(r, req, &t, d)
	case dhcp6wire.Request, dhcp6wire.Renew, dhcp6wire.Rebind:
		return bind(r, req, &t, d)
	default: // Release, Decline
		return release(r, req, &t, d)
	}
}

// validate applies RFC 8415 section 16 to m: which messages a server
// answers, and which must or must not name it.
func validate(m *dhcp6wire.Message, serverID []byte, unicast bool) error {
	var needServerID, forbidServerID bool
	switch m.Type {
	case dhcp6wire.Solicit, dhcp6wire.Confirm, dhcp6wire.Rebind:
		forbidServerID = true
	case dhcp6wire.Request, dhcp6wire.Renew, dhcp6wire.Release, dhcp6wire.Decline:
		needServerID = true
	case dhcp6wire.InformationRequest:
	default:
		return ErrMessageType
	}
	switch {
	case m.ClientID == nil && m.Type != dhcp6wire.InformationRequest:
		return ErrClientIDMissing
	case m.ServerID != nil && forbidServerID:
		return ErrServerIDUnexpected
	case m.ServerID == nil && needServerID:
		return ErrServerIDMissing
	case m.ServerID != nil && string(m.ServerID) != string(serverID):
		return ErrOtherServer
	case m.Type == dhcp6wire.InformationRequest && len(m.IANA) > 0:
		return ErrInformationIA
	case unicast && !mustUseMulticast(m.Type):
		return ErrUnicast
	}
	return nil
}

// mustUseMulticast reports whether a message of type typ sent by unicast
// is answered with UseMulticast (RFC 8415 section 18.3.1 and after): the
// server never sends the Server Unicast option, so a client that unicasts
// a REQUEST, RENEW, RELEASE or DECLINE is told to send it to all servers.
func mustUseMulticast(typ dhcp6wire.MessageType) bool {
	switch typ {
	case dhcp6wire.Request, dhcp6wire.Renew, dhcp6wire.Release, dhcp6wire.Decline:
		return true
	}
	return false
}

// confirm answers a CONFIRM: Success when every address of its IAs is on
// t's prefix, NotOnLink when one is not, nothing without an address.
func confirm(r *Reply, req *dhcp6wire.Packet, t *Table) (Decision, error) {
	any, onLink := false, true
	for _, ia := range req.Msg.IANA {
		for _, a := range ia.Addrs {
			any = true
			onLink = onLink && t.Prefix.Contains(a.Addr)
		}
	}
	if !any {
		return Decision{}, ErrNothingToConfirm
	}
	out := r.reset(req, dhcp6wire.Reply, t.ServerID)
	out.Status = dhcp6wire.Status{Present: true, Code: dhcp6wire.Success, Message: textOnLink}
	if !onLink {
		out.Status = dhcp6wire.Status{Present: true, Code: dhcp6wire.NotOnLink, Message: textNotOnLink}
	}
	return Decision{Type: dhcp6wire.Reply}, nil
}
