package dhcp6

import (
	"net/netip"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// solicit answers a SOLICIT: an ADVERTISE of the lease's address, a REPLY
// that commits it when the client asked for Rapid Commit and t allows
// it, or an ADVERTISE with the status NoAddrsAvail and nothing else
// (RFC 8415 section 18.3.9) when no candidate has a lease, the lease's
// address is on probation, or the client asked for no IA_NA.
func solicit(r *Reply, req *dhcp6wire.Packet, t *Table, d Decision) (Decision, error) {
	m := &req.Msg
	d.Type = dhcp6wire.Advertise
	if d.Client.Source == 0 || len(m.IANA) == 0 || t.held(d.Lease.Addr) {
		out := r.reset(req, dhcp6wire.Advertise, t.ServerID)
		out.Status = dhcp6wire.Status{Present: true, Code: dhcp6wire.NoAddrsAvail, Message: textNoAddrs}
		if d.Client.Source != 0 && t.held(d.Lease.Addr) {
			out.Status.Message = textOnProbation
		}
		return d, nil
	}
	if m.RapidCommit && t.RapidCommit {
		d.Type, d.Bound = dhcp6wire.Reply, true
	}
	out := r.reset(req, d.Type, t.ServerID)
	out.RapidCommit = d.Bound
	r.grant(m, t, d.Lease.Addr, false, dhcp6wire.NoAddrsAvail)
	r.addOptions(m, t.Options)
	return d, nil
}

// bind answers a REQUEST, RENEW or REBIND (RFC 8415 sections 18.3.2,
// 18.3.4, 18.3.5).
func bind(r *Reply, req *dhcp6wire.Packet, t *Table, d Decision) (Decision, error) {
	m := &req.Msg
	found := d.Client.Source != 0
	usable := found
	if found && t.held(d.Lease.Addr) {
		// A client asks to keep an address it declined only when the
		// decline was not its own (see Decide).
		d.Lifted = names(m, d.Lease.Addr) && t.declinedBy(d.Lease.Addr, d.Client.MAC)
		usable = d.Lifted
	}
	r.reset(req, dhcp6wire.Reply, t.ServerID)
	others := dhcp6wire.NoAddrsAvail
	if m.Type != dhcp6wire.Request {
		others = dhcp6wire.NoBinding
	}
	switch {
	case usable:
		r.grant(m, t, d.Lease.Addr, true, others)
		d.Bound = len(m.IANA) > 0
		d.Lifted = d.Lifted && d.Bound
	case found: // on probation
		for i := range m.IANA {
			r.refuse(&m.IANA[i], dhcp6wire.NoAddrsAvail, textOnProbation, m.Type != dhcp6wire.Request)
		}
	case m.Type == dhcp6wire.Request:
		for i := range m.IANA {
			r.refuse(&m.IANA[i], dhcp6wire.NoAddrsAvail, textNoAddrs, false)
		}
	case m.Type == dhcp6wire.Renew:
		for i := range m.IANA {
			r.refuse(&m.IANA[i], dhcp6wire.NoBinding, textNoBinding, false)
		}
	default: // REBIND without a lease: the server is authoritative for its prefix
		for i := range m.IANA {
			ia := &m.IANA[i]
			switch {
			case len(ia.Addrs) == 0:
				// Nothing to say about an IA that names no address.
			case !allOnLink(ia, t.Prefix):
				r.refuse(ia, dhcp6wire.NotOnLink, textNotOnLink, true)
			default:
				r.refuse(ia, dhcp6wire.NoBinding, textNoBinding, true)
			}
		}
		if len(r.Packet.Msg.IANA) == 0 {
			return Decision{}, ErrNothingToConfirm
		}
	}
	r.addOptions(m, t.Options)
	return d, nil
}

// release answers a RELEASE or a DECLINE (RFC 8415 sections 18.3.7 and
// 18.3.8): Success, and each IA that does not name the client's lease
// address back with NoBinding. The lease's address, when an IA names it,
// is the Decision's Released or Declined.
func release(r *Reply, req *dhcp6wire.Packet, t *Table, d Decision) (Decision, error) {
	m := &req.Msg
	out := r.reset(req, dhcp6wire.Reply, t.ServerID)
	named := false
	for i := range m.IANA {
		ia := &m.IANA[i]
		if d.Client.Source != 0 && iaNames(ia, d.Lease.Addr) {
			named = true
			continue
		}
		r.addIA(dhcp6wire.IANA{IAID: ia.IAID, Status: dhcp6wire.Status{Present: true, Code: dhcp6wire.NoBinding, Message: textNoBinding}})
	}
	text := textReleased
	if m.Type == dhcp6wire.Decline {
		text = textDeclined
	}
	out.Status = dhcp6wire.Status{Present: true, Code: dhcp6wire.Success, Message: text}
	if named && m.Type == dhcp6wire.Release {
		d.Released = d.Lease.Addr
	} else if named {
		d.Declined = d.Lease.Addr
	}
	return d, nil
}

// grant adds the client's IAs to the reply: the lease's address, with
// the pool's lifetimes, in the IA that names it (or the first); when
// zeroOthers, beside it every other address that IA names at lifetimes
// 0, so that a client whose address the pool moved stops using the old
// one (RFC 8415 section 18.3.4). Every other IA gets the status others
// and no address.
func (r *Reply) grant(m *dhcp6wire.Message, t *Table, addr netip.Addr, zeroOthers bool, others dhcp6wire.StatusCode) {
	k := 0
	for i := range m.IANA {
		if iaNames(&m.IANA[i], addr) {
			k = i
			break
		}
	}
	preferred, valid, t1, t2 := t.lifetimes()
	for i := range m.IANA {
		ia := &m.IANA[i]
		if i != k {
			text := textNoAddrs
			if others == dhcp6wire.NoBinding {
				text = textNoBinding
			}
			r.refuse(ia, others, text, zeroOthers)
			continue
		}
		var room [4]dhcp6wire.IAAddr
		list := append(room[:0], dhcp6wire.IAAddr{Addr: addr, Preferred: preferred, Valid: valid})
		for _, a := range ia.Addrs {
			if zeroOthers && a.Addr != addr {
				list = append(list, dhcp6wire.IAAddr{Addr: a.Addr})
			}
		}
		r.addIA(dhcp6wire.IANA{IAID: ia.IAID, T1: t1, T2: t2}, list...)
	}
}

// refuse adds ia to the reply with the status code and text, and, when
// zeroNamed, each address it names at lifetimes 0.
func (r *Reply) refuse(ia *dhcp6wire.IANA, code dhcp6wire.StatusCode, text []byte, zeroNamed bool) {
	out := dhcp6wire.IANA{IAID: ia.IAID, Status: dhcp6wire.Status{Present: true, Code: code, Message: text}}
	if !zeroNamed || len(ia.Addrs) == 0 {
		r.addIA(out)
		return
	}
	var room [4]dhcp6wire.IAAddr
	list := room[:0]
	for _, a := range ia.Addrs {
		list = append(list, dhcp6wire.IAAddr{Addr: a.Addr})
	}
	r.addIA(out, list...)
}

// names reports whether an IA_NA of m names a.
func names(m *dhcp6wire.Message, a netip.Addr) bool {
	for i := range m.IANA {
		if iaNames(&m.IANA[i], a) {
			return true
		}
	}
	return false
}

func iaNames(ia *dhcp6wire.IANA, a netip.Addr) bool {
	for _, x := range ia.Addrs {
		if x.Addr == a {
			return true
		}
	}
	return false
}

// allOnLink reports whether every address ia names is in prefix.
func allOnLink(ia *dhcp6wire.IANA, prefix netip.Prefix) bool {
	for _, a := range ia.Addrs {
		if !prefix.Contains(a.Addr) {
			return false
		}
	}
	return true
}
