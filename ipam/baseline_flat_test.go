package ipam

import (
	"math/bits"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// flatPool is the physical limit for a dense IPv4 pool, kept here as a
// benchmark baseline: one bit per address of the range, word scans with
// bits.TrailingZeros64 from the lowest word that can hold a free bit, and the
// same owner bookkeeping as Pool (owner to address in a map, address to
// owner in a slice indexed by offset, the cheapest possible). It has no
// exclusions; its bitmap costs range/8 bytes whatever is allocated.
type flatPool struct {
	first   uint32
	n       uint32   // addresses in the range
	words   []uint64 // bit set: taken
	owner   []string // by offset
	offsets map[string]uint32
	low     int // no free bit in words[:low]
}

func newFlatPool(first, last uint32) *flatPool {
	n := last - first + 1
	p := &flatPool{
		first:   first,
		n:       n,
		words:   make([]uint64, (n+63)/64),
		owner:   make([]string, n),
		offsets: make(map[string]uint32),
	}
	if r := n % 64; r != 0 {
		p.words[len(p.words)-1] = ^uint64(0) << r // past the end: taken
	}
	return p
}

func (p *flatPool) addr(o uint32) netip.Addr {
	return u128.From64(uint64(p.first + o)).Addr(true)
}

func (p *flatPool) Allocate(owner string) (netip.Addr, error) {
	if o, ok := p.offsets[owner]; ok {
		return p.addr(o), nil
	}
	for w := p.low; w < len(p.words); w++ {
		if free := ^p.words[w]; free != 0 {
			p.low = w
			o := uint32(w*64 + bits.TrailingZeros64(free))
			p.words[w] |= 1 << (o % 64)
			p.owner[o] = owner
			p.offsets[owner] = o
			return p.addr(o), nil
		}
	}
	p.low = len(p.words)
	return netip.Addr{}, ErrExhausted
}

func (p *flatPool) Release(a netip.Addr) (string, error) {
	if !a.Is4() {
		return "", ErrNotAllocated
	}
	o := uint32(u128.FromAddr(a).Lo) - p.first
	if o >= p.n || p.words[o/64]&(1<<(o%64)) == 0 {
		return "", ErrNotAllocated
	}
	p.words[o/64] &^= 1 << (o % 64)
	owner := p.owner[o]
	p.owner[o] = ""
	delete(p.offsets, owner)
	p.low = min(p.low, int(o/64))
	return owner, nil
}
