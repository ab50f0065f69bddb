package dhcp6

import (
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// DefaultValidLifetime is the valid lifetime of a lease whose pool sets
// none (leasestore.Options.Lifetimes gives zero): one hour, the DHCPv4
// agent's default lease time.
const DefaultValidLifetime = time.Hour

// Table is what one answer is decided from: the lease table, the
// pool-wide facts that answer clients without a lease (CONFIRM, an
// authoritative REBIND, INFORMATION-REQUEST), the server's identity, and
// the addresses on probation as of Now. The decision reads Now and never a
// clock: the caller decides what "now" is.
type Table struct {
	Leases *leasestore.Store
	// Prefix is the served prefix, the link the pool's addresses are on:
	// CONFIRM and REBIND check addresses against it.
	Prefix netip.Prefix
	// Options are the pool's options as its leases carry them
	// (Leases.Options()): lifetimes, DNS servers, search list.
	Options *leasestore.Options
	// ServerID is the server's DUID, sent in every reply and compared
	// with the SERVERID of a client's message. A Table without one
	// answers no one (ErrNoServerID).
	ServerID []byte
	// RapidCommit lets a SOLICIT with the Rapid Commit option be answered
	// with a REPLY that commits the lease (RFC 8415 section 18.3.1).
	RapidCommit bool
	// Relays are the addresses of the relay agents whose RELAY-FORW
	// messages are answered (nil: none, every relayed message is
	// refused with ErrUntrustedRelay). A relay's options are believed
	// as the client's identity, so only the operator names relays.
	Relays []netip.Prefix
	// Probation holds back declined addresses (nil: none), as of Now.
	Probation *probation.Set
	Now       time.Time
}

// TableOf is the Table of store: its prefix and options, with serverID
// and no address on probation. A store without leases gives a Table
// whose Prefix is invalid: CONFIRM and REBIND find every address off
// link. It does not allocate.
func TableOf(store *leasestore.Store, serverID []byte) Table {
	t := Table{Leases: store, ServerID: serverID, Options: store.Options()}
	for l := range store.All() {
		t.Prefix = l.Prefix
		break
	}
	return t
}

// held reports whether a is on probation at t.Now.
func (t *Table) held(a netip.Addr) bool {
	if t.Probation == nil {
		return false
	}
	_, ok := t.Probation.Holds(a, t.Now)
	return ok
}

// declinedBy reports whether a is on probation at t.Now after a decline
// in mac's name.
func (t *Table) declinedBy(a netip.Addr, mac leasestore.MAC) bool {
	if t.Probation == nil {
		return false
	}
	by, ok := t.Probation.DeclinedBy(a, t.Now)
	return ok && by == mac
}

// infinity is the lifetime 0xffffffff seconds, "infinite".
const infinity = 1<<32 - 1

// lifetimes returns the lease lifetimes and T1, T2 of t's pool in
// seconds: T1 and T2 are 0.5 and 0.8 of the preferred lifetime (RFC 8415
// section 21.4 recommends these ratios), infinite with it.
func (t *Table) lifetimes() (preferred, valid, t1, t2 uint32) {
	p, v := t.Options.Lifetimes()
	if v == 0 {
		v = DefaultValidLifetime
	}
	if p == 0 || p > v {
		p = v
	}
	preferred, valid = seconds(p), seconds(v)
	if preferred == infinity {
		return preferred, valid, infinity, infinity
	}
	return preferred, valid, preferred / 2, uint32(uint64(preferred) * 4 / 5)
}

func seconds(d time.Duration) uint32 {
	return uint32(min(d/time.Second, infinity))
}
