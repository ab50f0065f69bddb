package leasestore

import (
	"cmp"
	"encoding/binary"
	"iter"
	"net/netip"
)

// Store is a DHCP lease table: at most one lease per MAC and per address.
// It is immutable once Build (or Plan.Apply) returns it, so any number of
// goroutines may read it; an agent publishes a new table by swapping an
// atomic.Pointer[Store], and no reader ever sees a half-applied change.
//
// A nil *Store is an empty table: its lookups find nothing, Len is 0, and
// Diff(nil, s) adds every lease of s.
//
// A Store holds each lease twice, sorted by address and by MAC, in 22
// bytes each, plus one Options; a Lease value is made on each lookup.
type Store struct {
	prefix netip.Prefix
	opts   *Options
	is4    bool
	byAddr []entry // ascending addresses
	byMAC  []entry // ascending MACs
}

// entry is one lease in 22 bytes: the address as 16 bytes (IPv4 mapped
// into IPv6) and the MAC. A netip.Addr would take 24 bytes alone.
type entry struct {
	addr [16]byte
	mac  MAC
}

func (e *entry) hi() uint64 { return binary.BigEndian.Uint64(e.addr[:8]) }
func (e *entry) lo() uint64 { return binary.BigEndian.Uint64(e.addr[8:]) }

// cmpAddr orders entries by address.
func cmpAddr(a, b *entry) int {
	if c := cmp.Compare(a.hi(), b.hi()); c != 0 {
		return c
	}
	return cmp.Compare(a.lo(), b.lo())
}

// lease materializes e.
func (s *Store) lease(e *entry) Lease {
	a := netip.AddrFrom16(e.addr)
	if s.is4 {
		a = a.Unmap()
	}
	return Lease{MAC: e.mac, Addr: a, Prefix: s.prefix, Options: s.opts}
}

// Len returns the number of leases in s.
func (s *Store) Len() int {
	if s == nil {
		return 0
	}
	return len(s.byAddr)
}

// Lookup returns the lease of mac, if s has one. It does not allocate.
func (s *Store) Lookup(mac MAC) (Lease, bool) {
	if s == nil {
		return Lease{}, false
	}
	k := mac.uint64()
	lo, hi := 0, len(s.byMAC)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.byMAC[m].mac.uint64() < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.byMAC) && s.byMAC[lo].mac == mac {
		return s.lease(&s.byMAC[lo]), true
	}
	return Lease{}, false
}

// LookupAddr returns the lease of addr, if s has one. An address with a
// zone or of the other family has none. It does not allocate.
func (s *Store) LookupAddr(addr netip.Addr) (Lease, bool) {
	if s == nil || !addr.IsValid() || addr.Zone() != "" || addr.Is4() != s.is4 {
		return Lease{}, false
	}
	key := entry{addr: addr.As16()}
	khi, klo := key.hi(), key.lo()
	lo, hi := 0, len(s.byAddr)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		e := &s.byAddr[m]
		if h := e.hi(); h < khi || h == khi && e.lo() < klo {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.byAddr) && s.byAddr[lo].addr == key.addr {
		return s.lease(&s.byAddr[lo]), true
	}
	return Lease{}, false
}

// All returns the leases of s in ascending address order.
func (s *Store) All() iter.Seq[Lease] {
	return func(yield func(Lease) bool) {
		if s == nil {
			return
		}
		for i := range s.byAddr {
			if !yield(s.lease(&s.byAddr[i])) {
				return
			}
		}
	}
}
