package leasestore

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
)

// tables turns servable allocations into a Store's two sorted tables,
// dropping what a Store cannot hold: all but the lowest MAC of an address,
// then all but the lowest address of a MAC. Both rules see the entries in
// sorted order, so the outcome does not depend on the input's order.
type tables struct {
	is4      bool
	owner    func(src int32) string // nil: no problems are reported (Plan.Apply)
	problems []Problem
}

func (t *tables) report(e *entry, src int32, format string, args ...any) {
	if t.owner == nil {
		return
	}
	owner := t.owner(src)
	addr := t.addr(e)
	t.problems = append(t.problems, Problem{
		Addr:  addr,
		Owner: owner,
		Err:   fmt.Errorf("leasestore: lease %s for %q: "+format, append([]any{addr, owner}, args...)...),
	})
}

func (t *tables) addr(e *entry) netip.Addr {
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
func (t *tables) build(ents []entry, srcs []int32, sorted, sameHi bool, macVary uint64) (byAddr, byMAC []entry) {
	byAddr = ents
	if !sorted {
		sortByAddr(ents, srcs, sameHi)
		byAddr = t.dropDuplicateAddrs(ents, srcs)
	}
	if cap(byAddr)-len(byAddr) > len(byAddr)/16 {
		byAddr = slices.Clip(slices.Clone(byAddr)) // do not retain the dropped entries' room
	}
	byMAC = sortEntriesByMAC(byAddr, macVary)

	dups := 0
	for i := 1; i < len(byMAC); i++ {
		if byMAC[i].mac == byMAC[i-1].mac {
			dups++
		}
	}
	if dups == 0 {
		return byAddr, byMAC
	}
	// A MAC keeps its lowest address (its entries are in address order);
	// the others leave both tables.
	dropped := make([]entry, 0, dups)
	keptMAC := make([]entry, 0, len(byMAC)-dups)
	for i := range byMAC {
		if i > 0 && byMAC[i].mac == byMAC[i-1].mac {
			dropped = append(dropped, byMAC[i])
			continue
		}
		keptMAC = append(keptMAC, byMAC[i])
	}
	slices.SortFunc(dropped, func(a, b entry) int { return cmpAddr(&a, &b) })
	keptAddr := make([]entry, 0, len(keptMAC))
	j := 0
	for i := range byAddr {
		e := &byAddr[i]
		if j < len(dropped) && *e == dropped[j] {
			j++
			if t.owner != nil { // srcs is index-aligned with byAddr, or nil: the identity
				src := int32(i)
				if srcs != nil {
					src = srcs[i]
				}
				k, _ := slices.BinarySearchFunc(keptMAC, e.mac.uint64(), func(x entry, mac uint64) int { return cmp.Compare(x.mac.uint64(), mac) })
				t.report(e, src, "MAC also holds %s, which it keeps: %w", t.addr(&keptMAC[k]), ErrDuplicateMAC)
			}
			continue
		}
		keptAddr = append(keptAddr, *e)
	}
	return keptAddr, keptMAC
}

// dropDuplicateAddrs keeps, of each run of entries with one address, the
// one with the lowest MAC (and owner spelling), reporting the others. ents
// must be sorted by address; the result shares its array, and srcs (nil,
// or index-aligned with ents) is compacted alongside.
func (t *tables) dropDuplicateAddrs(ents []entry, srcs []int32) []entry {
	n := 0
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && ents[j].addr == ents[i].addr {
			j++
		}
		if j-i > 1 {
			t.resolveRun(ents, srcs, i, j)
		}
		if n != i {
			ents[n] = ents[i]
			if srcs != nil {
				srcs[n] = srcs[i]
			}
		}
		n++
		i = j
	}
	return ents[:n]
}

// resolveRun orders ents[i:j], entries of one address, and srcs[i:j] with
// them, by MAC and owner, and reports all but the first.
func (t *tables) resolveRun(ents []entry, srcs []int32, i, j int) {
	if srcs == nil {
		slices.SortFunc(ents[i:j], func(a, b entry) int { return cmp.Compare(a.mac.uint64(), b.mac.uint64()) })
		return
	}
	run := make([]item, 0, j-i)
	for k := i; k < j; k++ {
		run = append(run, item{ents[k], srcs[k]})
	}
	slices.SortFunc(run, func(a, b item) int {
		return cmp.Or(cmp.Compare(a.e.mac.uint64(), b.e.mac.uint64()), cmp.Compare(t.owner(a.src), t.owner(b.src)))
	})
	for k := range run {
		ents[i+k], srcs[i+k] = run[k].e, run[k].src
		switch {
		case k == 0:
		case run[k].e.mac == run[0].e.mac:
			t.report(&run[k].e, run[k].src, "listed again for the same MAC (as %q): %w", t.owner(run[0].src), ErrDuplicateAddr)
		default:
			t.report(&run[k].e, run[k].src, "address also allocated to %s, which keeps it: %w", run[0].e.mac, ErrDuplicateAddr)
		}
	}
}
