package leasestore

import (
	"math/bits"
	"slices"
)

// A Store holds its leases packed, one uint64 per lease and table, when
// every lease's MAC and address fit in 64 bits together; that is the
// common case (a pool's MACs share a vendor prefix, its addresses a range
// of a few million at most) and it costs 16 bytes a lease instead of 44.
// Other tables keep the wide 22-byte entries.

// packBits is the widest key a packed Store uses: 64. Tests lower it to
// make Build and Apply choose the wide form.
var packBits uint = 64

// packing is how a packed Store writes a lease as one uint64: the leases'
// MACs agree above their lowest macBits bits (those bits are macHigh), and
// their addresses lie within 2^offBits of base, with macBits + offBits at
// most 64.
//
// The address table holds off<<macBits | macLow, so ascending keys are
// ascending addresses; the MAC table holds macLow<<offBits | off,
// ascending MACs and then addresses. Shifts by 64 are 0 in Go, which
// makes the limit cases (one MAC, or one address) need no branch.
type packing struct {
	base    u128   // the lowest address, IPv4 in its IPv4-mapped form
	macHigh uint64 // the MAC bits above macBits, the same in every lease
	macBits uint
	offBits uint
}

// newPacking returns the packing of leases whose addresses span first to
// last and whose MACs, as integers, have all the bits of macOr and share
// those of macAnd, or false when they do not fit in one uint64.
func newPacking(first, last u128, macAnd, macOr uint64) (packing, bool) {
	if last.less(first) {
		return packing{}, false
	}
	span := last.sub(first)
	macBits := uint(bits.Len64(macAnd ^ macOr))
	offBits := uint(bits.Len64(span.lo))
	if span.hi != 0 || macBits+offBits > packBits {
		return packing{}, false
	}
	return packing{base: first, macHigh: macAnd &^ lowBits(macBits), macBits: macBits, offBits: offBits}, true
}

// lowBits returns a mask of the lowest n bits, n <= 64.
func lowBits(n uint) uint64 { return 1<<n - 1 }

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

// offset returns a's offset from base, or false when a is not within
// 2^offBits of it.
func (p *packing) offset(a u128) (uint64, bool) {
	if a.less(p.base) {
		return 0, false
	}
	d := a.sub(p.base)
	return d.lo, d.hi == 0 && d.lo&^lowBits(p.offBits) == 0
}

// entry returns the wide entry of a MAC and an offset.
func (p *packing) entry(mac, off uint64) entry {
	return entry{addr: p.base.add64(off).bytes(), mac: macFromUint64(mac)}
}

// packTables returns the packed form of wide tables of at least one lease,
// or false when it does not fit.
func packTables(byAddr, byMAC []entry) (p packing, addrKeys, macKeys []uint64, ok bool) {
	macAnd, macOr := ^uint64(0), uint64(0)
	for i := range byAddr {
		k := byAddr[i].mac.uint64()
		macAnd &= k
		macOr |= k
	}
	p, ok = newPacking(byAddr[0].u128(), byAddr[len(byAddr)-1].u128(), macAnd, macOr)
	if !ok {
		return packing{}, nil, nil, false
	}
	addrKeys = make([]uint64, len(byAddr))
	macKeys = make([]uint64, len(byMAC))
	for i := range byAddr {
		off, _ := p.offset(byAddr[i].u128())
		addrKeys[i] = p.addrKey(byAddr[i].mac.uint64(), off)
	}
	for i := range byMAC {
		off, _ := p.offset(byMAC[i].u128())
		macKeys[i] = p.macKey(byMAC[i].mac.uint64(), off)
	}
	return p, addrKeys, macKeys, true
}

// sortMACKeys writes to dst, as long as addrKeys, the MAC table of an
// address table: the keys of the same leases, sorted. It is an MSD radix
// sort: one pass on the highest eight varying MAC bits into dst (256
// write streams, few enough for the TLB), then each bucket, in cache by
// now, sorted the same way on its next bits with a bucket-sized scratch.
func sortMACKeys(p *packing, addrKeys, dst []uint64) {
	if len(addrKeys) < radixMin || p.macBits == 0 {
		for i, k := range addrKeys {
			dst[i] = p.macKeyOfAddrKey(k)
		}
		slices.Sort(dst)
		return
	}
	b := min(p.macBits, keyDigitBits)
	shift := p.macBits - b
	var counts [1 << keyDigitBits]uint32
	for _, k := range addrKeys {
		counts[k>>shift&lowBits(b)]++
	}
	offsets(counts[:1<<b])
	for _, k := range addrKeys {
		d := k >> shift & lowBits(b)
		dst[counts[d]] = p.macKeyOfAddrKey(k)
		counts[d]++
	}
	var scratch []uint64
	start := uint32(0)
	for _, end := range counts[:1<<b] { // counts[d] is now the end of bucket d
		if bucket := dst[start:end]; len(bucket) > 1 {
			if len(scratch) < len(bucket) {
				scratch = make([]uint64, max(len(bucket), 2*len(scratch)))
			}
			sortKeys(bucket, scratch, p.offBits+shift)
		}
		start = end
	}
}

const keyDigitBits = 8

// sortKeys sorts keys, which agree at and above bit top, using scratch (at
// least as long as keys) for its radix passes.
func sortKeys(keys, scratch []uint64, top uint) {
	if len(keys) <= insertionMax || top == 0 {
		for i := 1; i < len(keys); i++ {
			x := keys[i]
			j := i
			for ; j > 0 && x < keys[j-1]; j-- {
				keys[j] = keys[j-1]
			}
			keys[j] = x
		}
		return
	}
	b := min(top, keyDigitBits)
	shift := top - b
	var counts [1 << keyDigitBits]uint32
	for _, k := range keys {
		counts[k>>shift&lowBits(b)]++
	}
	offsets(counts[:1<<b])
	for _, k := range keys {
		d := k >> shift & lowBits(b)
		scratch[counts[d]] = k
		counts[d]++
	}
	copy(keys, scratch[:len(keys)])
	start := uint32(0)
	for _, end := range counts[:1<<b] {
		if end-start > 1 {
			sortKeys(keys[start:end], scratch, shift)
		}
		start = end
	}
}
