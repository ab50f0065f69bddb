package leasestore

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
)

// tableBuilder turns servable allocations into a Store's two sorted tables,
// dropping what a Store cannot hold (an address or a MAC twice) by the
// rule of ipam.Restore: the entries are taken in (address, MAC) order, a
// MAC keeps its lowest address, and an address goes to the first MAC that
// does not keep a lower address already. The rule sees the entries in
// sorted order, so the outcome does not depend on the input's order.
type tableBuilder struct {
	is4      bool
	owner    func(src int32) string // nil: no problems are reported (Plan.Apply)
	problems []Problem
}

func (t *tableBuilder) report(e *entry, src int32, format string, args ...any) {
	if t.owner == nil {
		return
	}
	owner := t.owner(src)
	addr := t.addr(e)
	t.problems = append(t.problems, Problem{
		Addr:  addr,
		Owner: owner,
		Err:   fmt.Errorf("leasestore: lease %s for %s: "+format, append([]any{addr, errtext.Quote(owner)}, args...)...),
	})
}

func (t *tableBuilder) addr(e *entry) netip.Addr {
	a := netip.AddrFrom16(e.addr)
	if t.is4 {
		return a.Unmap()
	}
	return a
}

// build returns the address-ordered and MAC-ordered tables of ents, which
// it reorders and may return as byAddr. srcs, nil when t reports no
// problems, is index-aligned with ents; when sorted, nil also means that
// each entry's source is its index. sorted reports whether ents is in
// ascending address order already (strictly: no address twice), sameHi
// whether all entries share the upper 64 bits of their address; macVary
// has a bit set for every MAC bit that is not the same in all entries.
//
// Without an address or a MAC twice, build only sorts: the conflict rule
// (resolve) costs nothing then.
func (t *tableBuilder) build(ents []entry, srcs []int32, sorted, sameHi bool, macVary uint64) (byAddr, byMAC []entry) {
	byAddr = ents
	addrDups := 0
	if !sorted {
		sortByAddr(ents, srcs, sameHi)
		addrDups = t.orderRuns(ents, srcs)
	}
	byMAC = sortEntriesByMAC(byAddr, macVary)
	macDups := 0
	for i := 1; i < len(byMAC); i++ {
		if byMAC[i].mac == byMAC[i-1].mac {
			macDups++
		}
	}
	if addrDups > 0 || macDups > 0 {
		return t.resolve(byAddr, srcs, byMAC)
	}
	if cap(byAddr)-len(byAddr) > len(byAddr)/16 {
		byAddr = slices.Clip(slices.Clone(byAddr)) // do not retain the input's spare room
	}
	return byAddr, byMAC
}

// orderRuns orders each run of entries of one address in ents, which is
// sorted by address, by MAC and then owner spelling, with srcs (nil, or
// index-aligned with ents), and returns the number of entries that share
// their address with an earlier one.
func (t *tableBuilder) orderRuns(ents []entry, srcs []int32) int {
	dups := 0
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && ents[j].addr == ents[i].addr {
			j++
		}
		if j-i > 1 {
			dups += j - i - 1
			t.orderRun(ents, srcs, i, j)
		}
		i = j
	}
	return dups
}

// orderRun orders ents[i:j], entries of one address, and srcs[i:j] with
// them, by MAC and then owner spelling (the spelling only orders the
// problems of one MAC listed twice).
func (t *tableBuilder) orderRun(ents []entry, srcs []int32, i, j int) {
	if srcs == nil {
		slices.SortFunc(ents[i:j], func(a, b entry) int { return cmp.Compare(a.mac.uint64(), b.mac.uint64()) })
		return
	}
	run := make([]item, 0, j-i)
	for k := i; k < j; k++ {
		run = append(run, item{ents[k], srcs[k]})
	}
	slices.SortFunc(run, func(a, b item) int {
		if c := cmp.Compare(a.e.mac.uint64(), b.e.mac.uint64()); c != 0 || t.owner == nil {
			return c
		}
		return cmp.Compare(t.owner(a.src), t.owner(b.src))
	})
	for k := range run {
		ents[i+k], srcs[i+k] = run[k].e, run[k].src
	}
}

// resolve applies ipam.Restore's rule to byAddr, entries in address order
// and those of one address in MAC order (orderRuns), and byMAC, the same
// entries by MAC and then address: in byAddr's order, an entry whose
// address went to an earlier entry is left out (ErrDuplicateAddr), then
// an entry whose MAC keeps a lower address (ErrDuplicateMAC); any other
// entry is kept. It returns the kept entries in both orders, new slices,
// and reports the others.
//
// Only a MAC listed more than once can keep an address already, so only
// those MACs are tracked: a filter of their hashes spares the others a
// map look-up.
func (t *tableBuilder) resolve(byAddr []entry, srcs []int32, byMAC []entry) (keptAddr, keptMAC []entry) {
	var repeated []uint64
	for i := 1; i < len(byMAC); i++ {
		if k := byMAC[i].mac.uint64(); k == byMAC[i-1].mac.uint64() && (len(repeated) == 0 || repeated[len(repeated)-1] != k) {
			repeated = append(repeated, k)
		}
	}
	f := newMACFilter(len(repeated))
	keeps := make(map[uint64]int32, len(repeated)) // a repeated MAC -> the index in byAddr of the address it keeps
	for _, k := range repeated {
		f.add(k)
	}
	src := func(i int) int32 {
		if srcs == nil {
			return int32(i)
		}
		return srcs[i]
	}

	keptAddr = make([]entry, 0, len(byAddr))
	var dropped []entry
	for i := 0; i < len(byAddr); {
		j := i + 1
		for j < len(byAddr) && byAddr[j].addr == byAddr[i].addr {
			j++
		}
		winner := -1 // the entry of byAddr[i:j] that keeps the address
		for k := i; k < j; k++ {
			e := &byAddr[k]
			key := e.mac.uint64()
			switch {
			case winner >= 0 && e.mac == byAddr[winner].mac:
				t.report(e, src(k), "listed again for the same MAC (as %s): %w", errtext.Quote(t.owner0(src(winner))), ErrDuplicateAddr)
			case winner >= 0:
				t.report(e, src(k), "held by %s: %w", byAddr[winner].mac, ErrDuplicateAddr)
			default:
				if f.mayHold(key) {
					if at, ok := keeps[key]; ok {
						t.report(e, src(k), "MAC also holds %s, which it keeps: %w", t.addr(&byAddr[at]), ErrDuplicateMAC)
						break
					}
					if _, found := slices.BinarySearch(repeated, key); found {
						keeps[key] = int32(k)
					}
				}
				winner = k
				keptAddr = append(keptAddr, *e)
				continue
			}
			dropped = append(dropped, *e)
		}
		i = j
	}

	// byMAC holds the entries in (MAC, address) order: drop the left-out
	// ones in one merge.
	slices.SortFunc(dropped, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.mac.uint64(), b.mac.uint64()), cmpAddr(&a, &b))
	})
	keptMAC = make([]entry, 0, len(keptAddr))
	d := 0
	for i := range byMAC {
		if d < len(dropped) && byMAC[i] == dropped[d] {
			d++
			continue
		}
		keptMAC = append(keptMAC, byMAC[i])
	}
	return keptAddr, keptMAC
}

// owner0 is owner, or "" when t reports no problems.
func (t *tableBuilder) owner0(src int32) string {
	if t.owner == nil {
		return ""
	}
	return t.owner(src)
}

// macFilter is a set of MACs that may answer "maybe" for others (a
// one-hash Bloom filter): it spares most look-ups of the few MACs listed
// twice.
type macFilter struct {
	bits  []uint64
	shift uint
}

func newMACFilter(n int) macFilter {
	b := uint(6) // at least one word; about 16 bits a MAC
	for b < 24 && 1<<b < 16*n {
		b++
	}
	return macFilter{bits: make([]uint64, 1<<(b-6)), shift: 64 - b}
}

func (f *macFilter) slot(k uint64) uint64  { return (k * 0x9e3779b97f4a7c15) >> f.shift }
func (f *macFilter) add(k uint64)          { h := f.slot(k); f.bits[h>>6] |= 1 << (h & 63) }
func (f *macFilter) mayHold(k uint64) bool { h := f.slot(k); return f.bits[h>>6]&(1<<(h&63)) != 0 }
