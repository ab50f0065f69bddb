package leasestore

import (
	"cmp"
	"encoding/binary"
	"iter"
	"net/netip"
	"slices"

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

	// The packed form (see packing), used when byAddr is nil.
	pk                packing
	addrKeys, macKeys []uint64
	byAddr, byMAC     []entry // the wide form: ascending addresses, MACs
}

// entry is one lease in 22 bytes: the address as 16 bytes (IPv4 mapped
// into IPv6) and the MAC. A netip.Addr would take 24 bytes alone.
type entry struct {
	addr [16]byte
	mac  MAC
}

func (e *entry) hi() uint64         { return binary.BigEndian.Uint64(e.addr[:8]) }
func (e *entry) lo() uint64         { return binary.BigEndian.Uint64(e.addr[8:]) }
func (e *entry) addr128() u128.U128 { return u128.U128{Hi: e.hi(), Lo: e.lo()} }
func (s *Store) packed() bool       { return s.byAddr == nil }

// cmpAddr orders entries by address.
func cmpAddr(a, b *entry) int {
	if c := cmp.Compare(a.hi(), b.hi()); c != 0 {
		return c
	}
	return cmp.Compare(a.lo(), b.lo())
}

// setTables makes the wide tables s's leases, packed when they fit.
func (s *Store) setTables(byAddr, byMAC []entry) {
	if len(byAddr) == 0 {
		return
	}
	if pk, addrKeys, macKeys, ok := packTables(u128.FromAs16(s.prefix.Addr()), byAddr, byMAC); ok {
		s.pk, s.addrKeys, s.macKeys = pk, addrKeys, macKeys
		return
	}
	s.byAddr, s.byMAC = byAddr, byMAC
}

// lease materializes e.
func (s *Store) lease(e *entry) Lease {
	a := netip.AddrFrom16(e.addr)
	if s.is4 {
		a = a.Unmap()
	}
	return Lease{MAC: e.mac, Addr: a, Prefix: s.prefix, Options: s.opts}
}

// macAt returns the MAC, as an integer, and the address of the i-th lease
// in MAC order.
func (s *Store) macAt(i int) (uint64, u128.U128) {
	if s.packed() {
		mac, off := s.pk.fromMACKey(s.macKeys[i])
		return mac, s.pk.base.Add64(off)
	}
	e := &s.byMAC[i]
	return e.mac.uint64(), e.addr128()
}

// leaseOf materializes the lease of a MAC and an address given as
// integers (the address as u128.FromAs16 writes it: an IPv4 address in its
// IPv4-mapped form, whose low 32 bits are the IPv4 address).
func (s *Store) leaseOf(mac uint64, a u128.U128) Lease {
	return Lease{MAC: macFromUint64(mac), Addr: a.Addr(s.is4), Prefix: s.prefix, Options: s.opts}
}

// addrAt is macAt in address order.
func (s *Store) addrAt(i int) (uint64, u128.U128) {
	if s.packed() {
		mac, off := s.pk.fromAddrKey(s.addrKeys[i])
		return mac, s.pk.base.Add64(off)
	}
	e := &s.byAddr[i]
	return e.mac.uint64(), e.addr128()
}

// Len returns the number of leases in s.
func (s *Store) Len() int {
	if s == nil {
		return 0
	}
	return len(s.addrKeys) + len(s.byAddr)
}

// Lookup returns the lease of mac, if s has one. It does not allocate.
func (s *Store) Lookup(mac MAC) (Lease, bool) {
	if s == nil {
		return Lease{}, false
	}
	k := mac.uint64()
	if s.packed() {
		if k&^lowBits(s.pk.macBits) != s.pk.macHigh {
			return Lease{}, false
		}
		want := k & lowBits(s.pk.macBits)
		i, _ := slices.BinarySearch(s.macKeys, want<<s.pk.offBits)
		if i < len(s.macKeys) {
			if got, off := s.pk.fromMACKey(s.macKeys[i]); got == k {
				return s.leaseOf(got, s.pk.base.Add64(off)), true
			}
		}
		return Lease{}, false
	}
	i, _ := slices.BinarySearchFunc(s.byMAC, k, func(e entry, k uint64) int { return cmp.Compare(e.mac.uint64(), k) })
	if i < len(s.byMAC) && s.byMAC[i].mac == mac {
		return s.lease(&s.byMAC[i]), true
	}
	return Lease{}, false
}

// LookupAddr returns the lease of addr, if s has one. An address with a
// zone or of the other family has none. It does not allocate.
func (s *Store) LookupAddr(addr netip.Addr) (Lease, bool) {
	if s == nil || !addr.IsValid() || addr.Zone() != "" || addr.Is4() != s.is4 {
		return Lease{}, false
	}
	if s.packed() {
		off, ok := s.pk.offset(u128.FromAs16(addr))
		if !ok {
			return Lease{}, false
		}
		i, _ := slices.BinarySearch(s.addrKeys, off<<s.pk.macBits)
		if i < len(s.addrKeys) {
			if mac, got := s.pk.fromAddrKey(s.addrKeys[i]); got == off {
				return Lease{MAC: macFromUint64(mac), Addr: addr, Prefix: s.prefix, Options: s.opts}, true
			}
		}
		return Lease{}, false
	}
	key := entry{addr: addr.As16()}
	i, _ := slices.BinarySearchFunc(s.byAddr, &key, func(e entry, k *entry) int { return cmpAddr(&e, k) })
	if i < len(s.byAddr) && s.byAddr[i].addr == key.addr {
		return s.lease(&s.byAddr[i]), true
	}
	return Lease{}, false
}

// All returns the leases of s in ascending address order.
func (s *Store) All() iter.Seq[Lease] {
	return func(yield func(Lease) bool) {
		for i := range s.Len() {
			if !yield(s.leaseOf(s.addrAt(i))) {
				return
			}
		}
	}
}
