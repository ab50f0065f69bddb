package leasestore

import (
	"iter"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// Store is a DHCP lease table: at most one lease per MAC and per address.
// It is immutable once Build (or Plan.Apply) returns it, so any number of
// goroutines may read it; an agent publishes a new table by swapping an
// atomic.Pointer[Store], and no reader ever sees a half-applied change.
//
// A nil *Store is an empty table: its lookups find nothing, Len is 0, and
// Diff(nil, s) adds every lease of s.
//
// A Store holds each lease twice, sorted by address and by MAC, plus one
// Options. When the leases' MACs agree above their lowest 24 to 48 bits and
// the addresses' offsets from the pool's prefix fit in the bits that are
// left (MACs under one vendor prefix with up to 2^40 addresses; MACs of any
// vendor within 2^16 addresses), a lease takes 16 bytes: one uint64 per
// table. Otherwise it takes 44. A Lease value is made on each lookup.
type Store struct {
	prefix netip.Prefix
	opts   *Options
	is4    bool
	t      table
}

// leaseOf materializes the lease of a MAC and an address given as
// integers (the address as u128.FromAs16 writes it: an IPv4 address in its
// IPv4-mapped form, whose low 32 bits are the IPv4 address).
func (s *Store) leaseOf(mac uint64, a u128.U128) Lease {
	return Lease{MAC: macFromUint64(mac), Addr: a.Addr(s.is4), Prefix: s.prefix, Options: s.opts}
}

// Options returns the options every lease of s carries: Build's copy of
// its opts, without the invalid values it dropped (and reported), the same
// pointer as each Lease's Options, even when s holds no lease. Callers must
// not modify it. A nil Store has none (nil). It does not allocate.
func (s *Store) Options() *Options {
	if s == nil {
		return nil
	}
	return s.opts
}

// Len returns the number of leases in s.
func (s *Store) Len() int {
	if s == nil {
		return 0
	}
	return s.t.len()
}

// Lookup returns the lease of mac, if s has one. It does not allocate.
func (s *Store) Lookup(mac MAC) (Lease, bool) {
	if s == nil {
		return Lease{}, false
	}
	a, ok := s.t.addrOf(mac.uint64())
	if !ok {
		return Lease{}, false
	}
	return s.leaseOf(mac.uint64(), a), true
}

// LookupAddr returns the lease of addr, if s has one. An address with a
// zone or of the other family has none. It does not allocate.
func (s *Store) LookupAddr(addr netip.Addr) (Lease, bool) {
	if s == nil || !addr.IsValid() || addr.Zone() != "" || addr.Is4() != s.is4 {
		return Lease{}, false
	}
	mac, ok := s.t.macOf(u128.FromAs16(addr))
	if !ok {
		return Lease{}, false
	}
	return Lease{MAC: macFromUint64(mac), Addr: addr, Prefix: s.prefix, Options: s.opts}, true
}

// All returns the leases of s in ascending address order.
func (s *Store) All() iter.Seq[Lease] {
	return func(yield func(Lease) bool) {
		for i := range s.Len() {
			if !yield(s.leaseOf(s.t.addrAt(i))) {
				return
			}
		}
	}
}
