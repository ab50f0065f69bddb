package dhcp4

import (
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Table is what one answer is decided from: the lease table, and the
// pool-wide facts that answer clients without a lease (an authoritative
// NAK, an INFORM). The zero Table has no lease table; every answer from
// it is [ErrNoTable].
type Table struct {
	Leases *leasestore.Store
	// Prefix is the served prefix: a REQUEST for an address inside it is
	// answered even from a MAC without a lease, an INFORM only from inside it.
	Prefix netip.Prefix
	// Options are the pool's options as its leases carry them; INFORM
	// replies carry them, and Options.ServerIP is the server identifier.
	Options *leasestore.Options
	// Peers hold the server identifiers of the other servers of the same
	// table (replicas of one pool, each with its own Options.ServerIP): a
	// DECLINE or RELEASE naming one is this server's as well, and a
	// REQUEST selecting one's offer is not answered but reported as a
	// binding (see [Ack]). Nil: no peers.
	Peers []netip.Prefix
	// Probation holds back the addresses declined (see [probation.Set]), as
	// of Now: the one way a Table says that an address is on probation,
	// and whose decline holds it. The decision reads Now and never a
	// clock, so that ReplyTo stays pure: the caller decides what "now" is.
	// A nil Probation holds none.
	Probation *probation.Set
	Now       time.Time

	// Cache keeps the leases' options encoded between replies (see
	// [OptionCache]): the server gives each table version one. Nil (as in
	// a TableOf) encodes them for every reply.
	Cache *OptionCache
}

// TableOf is the Table of store alone, as far as store tells: the prefix
// and options of its first lease, and no address on probation. A store
// without leases gives a Table whose Prefix is invalid, which answers no
// one. It does not allocate.
func TableOf(store *leasestore.Store) Table {
	t := Table{Leases: store}
	if store == nil {
		return t
	}
	for l := range store.All() {
		t.Prefix, t.Options = l.Prefix, l.Options
		break
	}
	return t
}

// held reports whether a is on probation at t.Now.
func (t Table) held(a netip.Addr) bool {
	if t.Probation == nil {
		return false
	}
	_, ok := t.Probation.Holds(a, t.Now)
	return ok
}

// declinedBy reports whether a is on probation at t.Now after a decline
// in mac's name.
func (t Table) declinedBy(a netip.Addr, mac leasestore.MAC) bool {
	if t.Probation == nil {
		return false
	}
	by, ok := t.Probation.DeclinedBy(a, t.Now)
	return ok && by == mac
}

// names reports whether a server identifier sid names this server or one
// of its peers.
func (t Table) names(sid netip.Addr) bool {
	return sid == serverOf(t) || t.peer(sid)
}

// peer reports whether sid is a peer's server identifier.
func (t Table) peer(sid netip.Addr) bool {
	for _, p := range t.Peers {
		if p.Contains(sid) {
			return true
		}
	}
	return false
}

// serverOf is t's server identifier, or the zero Addr.
func serverOf(t Table) netip.Addr {
	if t.Options == nil {
		return netip.Addr{}
	}
	return t.Options.ServerIP
}
