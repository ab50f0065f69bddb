package leasestore

import (
	"math/bits"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// A Store holds its leases packed, one uint64 per lease and table, when
// every lease's MAC and address fit in 64 bits together; that is the
// common case (a pool's MACs share a vendor prefix, or its addresses span
// 2^16 at most) and it costs 16 bytes a lease instead of 44. Other tables
// keep the wide 22-byte entries.

// packBits is the widest key a packed Store uses: 64. Tests lower it to
// make Build and Apply choose the wide form.
var packBits uint = 64

// minMACBits is the fewest MAC bits a key holds: an OUI's worth. The MACs
// of one vendor prefix then pack the same way whatever a table holds, so
// the tables of one pool compare key by key (see Diff).
const minMACBits = 24

// packing is how a packed Store writes a lease as one uint64: the leases'
// MACs agree above their lowest macBits bits (those bits are macHigh), and
// their addresses lie below base + 2^offBits, with macBits + offBits = 64.
//
// The address table holds off<<macBits | macLow, so ascending keys are
// ascending addresses; the MAC table holds macLow<<offBits | off,
// ascending MACs and then addresses.
type packing struct {
	base    u128.U128 // the pool prefix's first address, IPv4 in its IPv4-mapped form
	macHigh uint64    // the MAC bits above macBits, the same in every lease
	macBits uint
	offBits uint
}

// newPacking returns the packing from base of MACs that, as integers, have
// all the bits of macOr and share those of macAnd, or false when their
// varying bits leave no room for an offset.
func newPacking(base u128.U128, macAnd, macOr uint64) (packing, bool) {
	macBits := max(uint(bits.Len64(macAnd^macOr)), minMACBits)
	if macBits >= packBits {
		return packing{}, false
	}
	return packing{base: base, macHigh: macAnd &^ lowBits(macBits), macBits: macBits, offBits: packBits - macBits}, true
}

// lowBits returns a mask of the lowest n bits, n <= 64.
func lowBits(n uint) uint64 { return 1<<n - 1 }

func (p *packing) holds(mac uint64) bool          { return mac&^lowBits(p.macBits) == p.macHigh }
func (p *packing) addrKey(mac, off uint64) uint64 { return off<<p.macBits | mac&lowBits(p.macBits) }
func (p *packing) macKey(mac, off uint64) uint64  { return (mac&lowBits(p.macBits))<<p.offBits | off }

// fromAddrKey returns the MAC, as an integer, and the offset of a key of
// the address table; fromMACKey those of a key of the MAC table.
func (p *packing) fromAddrKey(k uint64) (mac, off uint64) {
	return p.macHigh | k&lowBits(p.macBits), k >> p.macBits
}

func (p *packing) fromMACKey(k uint64) (mac, off uint64) {
	return p.macHigh | k>>p.offBits, k & lowBits(p.offBits)
}

// macKeyOfAddrKey returns the MAC table's key of the lease of an address
// table's key.
func (p *packing) macKeyOfAddrKey(k uint64) uint64 {
	return (k&lowBits(p.macBits))<<p.offBits | k>>p.macBits
}

// offset returns a's offset from base, or false when it has none below
// 2^offBits.
func (p *packing) offset(a u128.U128) (uint64, bool) {
	if a.Less(p.base) {
		return 0, false
	}
	d := a.Sub(p.base)
	return d.Lo, d.Hi == 0 && d.Lo>>p.offBits == 0
}

// widen makes p the packing of MACs with the bits of macAnd and macOr,
// and re-encodes keys, address table keys of p whose largest offset is
// maxOff, for it; it reports false, and leaves both alone, when they do
// not fit.
func (p *packing) widen(keys []uint64, macAnd, macOr, maxOff uint64) bool {
	q, ok := newPacking(p.base, macAnd, macOr)
	if !ok || maxOff>>q.offBits != 0 {
		return false
	}
	for i, k := range keys {
		keys[i] = q.addrKey(p.fromAddrKey(k))
	}
	*p = q
	return true
}

// unpack turns address table keys of p back into MACs, in place.
func (p *packing) unpack(keys []uint64) {
	for i, k := range keys {
		keys[i], _ = p.fromAddrKey(k)
	}
}

// packTables returns the packed form from base of wide tables of at least
// one lease, or false when it does not fit.
func packTables(base u128.U128, byAddr, byMAC []entry) (p packing, addrKeys, macKeys []uint64, ok bool) {
	macAnd, macOr := ^uint64(0), uint64(0)
	for i := range byAddr {
		k := byAddr[i].mac.uint64()
		macAnd &= k
		macOr |= k
	}
	p, ok = newPacking(base, macAnd, macOr)
	if !ok {
		return packing{}, nil, nil, false
	}
	if _, ok := p.offset(byAddr[len(byAddr)-1].addr128()); !ok {
		return packing{}, nil, nil, false
	}
	addrKeys = make([]uint64, len(byAddr))
	macKeys = make([]uint64, len(byMAC))
	for i := range byAddr {
		off, _ := p.offset(byAddr[i].addr128())
		addrKeys[i] = p.addrKey(byAddr[i].mac.uint64(), off)
	}
	for i := range byMAC {
		off, _ := p.offset(byMAC[i].addr128())
		macKeys[i] = p.macKey(byMAC[i].mac.uint64(), off)
	}
	return p, addrKeys, macKeys, true
}

// packedTables returns the address and MAC tables of keys, address table
// keys of p in address order when sorted, or false when two leases share
// an address or a MAC: the wide path resolves and reports those. It does
// not modify keys, which may become the address table. macVary has a bit
// set for every MAC bit that is not the same in all keys.
func packedTables(p *packing, keys []uint64, sorted bool, macVary uint64) (byAddr, byMAC []uint64, ok bool) {
	byAddr = keys
	if !sorted {
		var or uint64
		for _, k := range keys {
			or |= k
		}
		byAddr = make([]uint64, len(keys))
		sortKeysInto(byAddr, keys, uint(bits.Len64(or)), nil)
		for i := 1; i < len(byAddr); i++ {
			if byAddr[i]>>p.macBits == byAddr[i-1]>>p.macBits {
				return nil, nil, false
			}
		}
	}
	byMAC = make([]uint64, len(byAddr))
	sortKeysInto(byMAC, byAddr, p.offBits+uint(bits.Len64(macVary)), p)
	for i := 1; i < len(byMAC); i++ {
		if byMAC[i]>>p.offBits == byMAC[i-1]>>p.offBits {
			return nil, nil, false
		}
	}
	return byAddr, byMAC, true
}
