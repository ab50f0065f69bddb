package ipam

import (
	"cmp"
	"slices"
)

// sortEntries sorts entries by offset, then owner, for offsets below
// 2^bits. Restore's cost is dominated by this sort, so large inputs use an
// LSD radix sort on the offset (8 bits per pass, passes over constant bytes
// skipped) and sort only the runs of equal offsets by owner.
func sortEntries(entries []entry, bits int) {
	byOffsetOwner := func(a, b entry) int {
		if c := a.o.Cmp(b.o); c != 0 {
			return c
		}
		return cmp.Compare(a.owner, b.owner)
	}
	if len(entries) < 512 {
		slices.SortFunc(entries, byOffsetOwner)
		return
	}
	src, dst := entries, make([]entry, len(entries))
	for pass := 0; pass*8 < bits; pass++ {
		var count [256]int
		for i := range src {
			count[src[i].o.Byte(pass)]++
		}
		if count[src[0].o.Byte(pass)] == len(src) {
			continue // every offset has the same byte here
		}
		pos := 0
		for b, c := range count {
			count[b] = pos
			pos += c
		}
		for i := range src {
			b := src[i].o.Byte(pass)
			dst[count[b]] = src[i]
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &entries[0] {
		copy(entries, src)
	}
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].o == entries[i].o {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(entries[i:j], byOffsetOwner)
		}
		i = j
	}
}
