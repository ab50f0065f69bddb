package leasestore

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// table is a Store's leases, sorted by address and by MAC, in one of two
// layouts: packed, one uint64 key per lease and order (see packing), when
// every lease's MAC and address offset fit in 64 bits together; else wide,
// one 22-byte entry per lease and order. Its methods answer by rank or by
// key, with the MAC as an integer and the address as u128.FromAs16 writes
// it, so that the Store's readers state their rules once for both.
//
// The zero table holds no lease.
type table struct {
	pk                packing
	addrKeys, macKeys []uint64 // the packed layout, used when byAddr is nil
	byAddr, byMAC     []entry  // the wide layout: ascending addresses, MACs
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

// cmpAddr orders entries by address.
func cmpAddr(a, b *entry) int {
	if c := cmp.Compare(a.hi(), b.hi()); c != 0 {
		return c
	}
	return cmp.Compare(a.lo(), b.lo())
}

// packedTable returns the table of packed keys of p, sorted by address
// and by MAC.
func packedTable(p packing, byAddr, byMAC []uint64) table {
	return table{pk: p, addrKeys: byAddr, macKeys: byMAC}
}

// wideTable returns the table of entries sorted by address and by MAC,
// packed from base (the pool prefix's first address) when they fit.
func wideTable(base u128.U128, byAddr, byMAC []entry) table {
	if len(byAddr) == 0 {
		return table{}
	}
	if p, addrKeys, macKeys, ok := packTables(base, byAddr, byMAC); ok {
		return packedTable(p, addrKeys, macKeys)
	}
	return table{byAddr: byAddr, byMAC: byMAC}
}

func (t *table) packed() bool { return t.byAddr == nil }

// len returns the number of leases.
func (t *table) len() int { return len(t.addrKeys) + len(t.byAddr) }

// addrAt returns the MAC and the address of the i-th lease in address
// order.
func (t *table) addrAt(i int) (mac uint64, a u128.U128) {
	if t.packed() {
		mac, off := t.pk.fromAddrKey(t.addrKeys[i])
		return mac, t.pk.base.Add64(off)
	}
	e := &t.byAddr[i]
	return e.mac.uint64(), e.addr128()
}

// macAt returns the MAC and the address of the i-th lease in MAC order.
func (t *table) macAt(i int) (mac uint64, a u128.U128) {
	if t.packed() {
		mac, off := t.pk.fromMACKey(t.macKeys[i])
		return mac, t.pk.base.Add64(off)
	}
	e := &t.byMAC[i]
	return e.mac.uint64(), e.addr128()
}

// addrOf returns the address of the lease of mac, if t has one.
func (t *table) addrOf(mac uint64) (u128.U128, bool) {
	if t.packed() {
		if !t.pk.holds(mac) {
			return u128.U128{}, false
		}
		i, _ := slices.BinarySearch(t.macKeys, t.pk.macKey(mac, 0))
		if i < len(t.macKeys) {
			if got, off := t.pk.fromMACKey(t.macKeys[i]); got == mac {
				return t.pk.base.Add64(off), true
			}
		}
		return u128.U128{}, false
	}
	i, _ := slices.BinarySearchFunc(t.byMAC, mac, func(e entry, k uint64) int { return cmp.Compare(e.mac.uint64(), k) })
	if i < len(t.byMAC) && t.byMAC[i].mac.uint64() == mac {
		return t.byMAC[i].addr128(), true
	}
	return u128.U128{}, false
}

// macOf returns the MAC of the lease of address a, if t has one.
func (t *table) macOf(a u128.U128) (uint64, bool) {
	if t.packed() {
		off, ok := t.pk.offset(a)
		if !ok {
			return 0, false
		}
		i, _ := slices.BinarySearch(t.addrKeys, t.pk.addrKey(0, off))
		if i < len(t.addrKeys) {
			if mac, got := t.pk.fromAddrKey(t.addrKeys[i]); got == off {
				return mac, true
			}
		}
		return 0, false
	}
	// By value: a key entry passed by pointer to the search's closure
	// escaped, one allocation a lookup in a wide table.
	i, _ := slices.BinarySearchFunc(t.byAddr, a, func(e entry, k u128.U128) int { return e.addr128().Cmp(k) })
	if i < len(t.byAddr) && t.byAddr[i].addr128() == a {
		return t.byAddr[i].mac.uint64(), true
	}
	return 0, false
}

// keyedAlike reports whether t and u write a lease as the same key (both
// packed, by one packing): then the leases at equal keys (sameKey) are
// equal, and compare without being decoded.
func (t *table) keyedAlike(u *table) bool {
	return t.packed() && u.packed() && t.pk == u.pk
}

// sameKey reports whether the i-th lease of t and the j-th lease of u, in
// MAC order, have one key; t and u are keyedAlike.
func (t *table) sameKey(i int, u *table, j int) bool { return t.macKeys[i] == u.macKeys[j] }
