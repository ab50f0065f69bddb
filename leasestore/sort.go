package leasestore

import (
	"math/bits"
	"slices"
)

// The sorts of a Store's tables, all radix sorts on the bits that vary:
//
//   - sortKeysInto and sortKeys sort the packed tables as plain uint64
//     keys (both orders): an MSD radix sort whose first pass writes to few
//     enough places for the TLB, and whose later passes work inside
//     buckets that fit in cache;
//   - sortByAddr sorts wide entries by address: an LSD radix sort on the
//     low 64 address bits, twelve bits per pass, skipping the digits that
//     all keys share (a pool's addresses share their prefix);
//   - sortEntriesByMAC sorts wide entries by MAC, stably: an MSD radix
//     sort on the varying MAC bits.
//
// The address order is sorted only when the input is not in order already:
// a snapshot lists its allocations in address order. Below radixMin
// elements, or for buckets of insertionMax or fewer, a comparison or an
// insertion sort on the same order is faster.

const (
	radixMin     = 512 // below this many elements, a comparison sort is faster
	insertionMax = 24  // buckets this small are sorted by insertion

	keyDigitBits    = 8  // the first pass of sortKeysInto
	bucketDigitBits = 11 // the passes of sortKeys

	digitBits   = 12 // the passes of sortByAddr
	digitValues = 1 << digitBits

	firstMaxBits = 14 // the widest first pass of sortEntriesByMAC
)

// sortKeysInto writes the keys of src to dst, as long, sorted; when toMAC
// is not nil the keys are address table keys of it, and dst gets their
// MAC table keys. All (converted) keys are below 2^top.
//
// It is an MSD radix sort: one pass on the highest eight bits into dst
// (256 write streams, few enough for the TLB), then each bucket, in cache
// by now, sorted the same way on its next bits with a bucket-sized
// scratch.
func sortKeysInto(dst, src []uint64, top uint, toMAC *packing) {
	if len(src) < radixMin {
		copy(dst, src)
		if toMAC != nil {
			for i, k := range dst {
				dst[i] = toMAC.macKeyOfAddrKey(k)
			}
		}
		slices.Sort(dst)
		return
	}
	b := min(top, keyDigitBits)
	shift := top - b
	var counts [1 << keyDigitBits]uint32
	if toMAC != nil { // the loops twice, so that neither tests toMAC per key
		for _, k := range src {
			counts[toMAC.macKeyOfAddrKey(k)>>shift&lowBits(b)]++
		}
		offsets(counts[:1<<b])
		for _, k := range src {
			c := toMAC.macKeyOfAddrKey(k)
			d := c >> shift & lowBits(b)
			dst[counts[d]] = c
			counts[d]++
		}
	} else {
		for _, k := range src {
			counts[k>>shift&lowBits(b)]++
		}
		offsets(counts[:1<<b])
		for _, k := range src {
			d := k >> shift & lowBits(b)
			dst[counts[d]] = k
			counts[d]++
		}
	}
	var scratch []uint64
	start := uint32(0)
	for _, end := range counts[:1<<b] { // counts[d] is now the end of bucket d
		if bucket := dst[start:end]; len(bucket) > 1 {
			if len(scratch) < len(bucket) {
				scratch = make([]uint64, max(len(bucket), 2*len(scratch)))
			}
			sortKeys(bucket, scratch, shift)
		}
		start = end
	}
}

// sortKeys sorts keys, which agree at and above bit top, using scratch (at
// least as long as keys) for its radix passes: a digit of up to 11 bits,
// about one key a value, so that few buckets need another pass.
func sortKeys(keys, scratch []uint64, top uint) {
	for len(keys) > insertionMax && top > 0 {
		b := min(top, uint(bits.Len(uint(len(keys)))), bucketDigitBits)
		shift := top - b
		var counts [1 << bucketDigitBits]uint32
		for _, k := range keys {
			counts[k>>shift&lowBits(b)]++
		}
		if counts[keys[0]>>shift&lowBits(b)] == uint32(len(keys)) {
			top = shift // one digit value: nothing to move
			continue
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
		return
	}
	for i := 1; i < len(keys); i++ {
		x := keys[i]
		j := i
		for ; j > 0 && x < keys[j-1]; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = x
	}
}

// histogram counts the digits of keys(i) for i < n, ndigits of them per
// key, and returns the counts and the digits that are not the same for
// every key.
func histogram(n, ndigits int, key func(i int) uint64) (counts []uint32, varying []int) {
	counts = make([]uint32, ndigits*digitValues)
	for i := range n {
		k := key(i)
		for d := range ndigits {
			counts[d*digitValues+int(k>>(digitBits*d))&(digitValues-1)]++
		}
	}
	first := key(0)
	for d := range ndigits {
		if counts[d*digitValues+int(first>>(digitBits*d))&(digitValues-1)] != uint32(n) {
			varying = append(varying, d)
		}
	}
	return counts, varying
}

// offsets turns the counts of one digit into the start offset of each value.
func offsets(c []uint32) {
	var sum uint32
	for i, x := range c {
		c[i] = sum
		sum += x
	}
}

// item is one servable allocation while the address table is sorted.
type item struct {
	e   entry
	src int32 // index of the allocation, for its owner in problems
}

// sortByAddr sorts ents by address, and srcs (nil, or index-aligned with
// ents) with it. Entries with equal addresses end up adjacent, in no
// particular order. sameHi reports whether all entries share the upper 64
// address bits.
func sortByAddr(ents []entry, srcs []int32, sameHi bool) {
	if len(ents) < radixMin || !sameHi {
		items := make([]item, len(ents))
		for i := range ents {
			items[i].e = ents[i]
			if srcs != nil {
				items[i].src = srcs[i]
			}
		}
		slices.SortFunc(items, func(a, b item) int { return cmpAddr(&a.e, &b.e) })
		for i := range items {
			ents[i] = items[i].e
			if srcs != nil {
				srcs[i] = items[i].src
			}
		}
		return
	}
	const ndigits = (64 + digitBits - 1) / digitBits
	counts, varying := histogram(len(ents), ndigits, func(i int) uint64 { return ents[i].lo() })
	in, out := make([]item, len(ents)), make([]item, len(ents))
	for i := range ents {
		in[i].e = ents[i]
		if srcs != nil {
			in[i].src = srcs[i]
		}
	}
	for _, d := range varying {
		c := counts[d*digitValues : (d+1)*digitValues]
		offsets(c)
		shift := digitBits * d
		for i := range in {
			k := int(in[i].e.lo()>>shift) & (digitValues - 1)
			out[c[k]] = in[i]
			c[k]++
		}
		in, out = out, in
	}
	for i := range in {
		ents[i] = in[i].e
		if srcs != nil {
			srcs[i] = in[i].src
		}
	}
}

// sortEntriesByMAC returns a new slice holding the entries of src, which
// are in ascending address order, sorted by MAC and then address. vary has
// a bit set for every MAC bit that is not the same in all entries.
//
// It is an MSD radix sort on the varying MAC bits: one pass scatters the
// entries into 4096 to 16384 buckets by their highest varying bits (few
// enough write streams to stay in cache), then each bucket, small by now, is
// sorted in place the same way with a scratch buffer, down to an insertion
// sort for the smallest. Every step is stable, so equal MACs stay in
// address order, and skewed MACs cost more passes, never O(n^2).
func sortEntriesByMAC(src []entry, vary uint64) []entry {
	dst := make([]entry, len(src))
	if len(src) <= insertionMax || vary == 0 {
		copy(dst, src)
		insertionSortByMAC(dst)
		return dst
	}
	top := bits.Len64(vary)
	b := min(top, firstBits(len(src)))
	shift := top - b
	mask := uint64(1)<<b - 1
	counts := make([]uint32, 1<<b)
	for i := range src {
		counts[src[i].mac.uint64()>>shift&mask]++
	}
	offsets(counts[:1<<b])
	for i := range src {
		k := src[i].mac.uint64() >> shift & mask
		dst[counts[k]] = src[i]
		counts[k]++
	}
	var tmp []entry
	start := uint32(0)
	for _, end := range counts[:1<<b] { // counts[k] is now the end of bucket k
		bucket := dst[start:end]
		start = end
		if len(bucket) > insertionMax && len(tmp) < len(bucket) {
			tmp = make([]entry, max(len(bucket), 2*len(tmp)))
		}
		sortBucketByMAC(bucket, tmp, shift)
	}
	return dst
}

// firstBits returns the number of bits of the first pass for n entries:
// enough for buckets of a few entries, which an insertion sort finishes,
// but not so many that the write streams leave the cache.
func firstBits(n int) int {
	return min(max(bits.Len(uint(n))-2, digitBits), firstMaxBits)
}

// sortBucketByMAC sorts ents, whose MACs agree above bit below, stably by
// MAC, using tmp (at least as long as ents when ents is longer than
// insertionMax) as scratch.
func sortBucketByMAC(ents, tmp []entry, below int) {
	if len(ents) <= insertionMax || below == 0 {
		if below > 0 {
			insertionSortByMAC(ents)
		}
		return
	}
	b := min(below, 8, max(bits.Len(uint(len(ents)))-1, 1)) // about two entries a bucket
	shift := below - b
	mask := uint64(1)<<b - 1
	var counts [256]uint32
	for i := range ents {
		counts[ents[i].mac.uint64()>>shift&mask]++
	}
	offsets(counts[:1<<b])
	for i := range ents {
		k := ents[i].mac.uint64() >> shift & mask
		tmp[counts[k]] = ents[i]
		counts[k]++
	}
	copy(ents, tmp[:len(ents)])
	start := uint32(0)
	for _, end := range counts[:1<<b] {
		if end-start > 1 { // most buckets of a small bucket hold one entry or none
			sortBucketByMAC(ents[start:end], tmp, shift)
		}
		start = end
	}
}

// insertionSortByMAC sorts a few entries stably by MAC.
func insertionSortByMAC(ents []entry) {
	for i := 1; i < len(ents); i++ {
		x := ents[i]
		k := x.mac.uint64()
		j := i
		for ; j > 0 && k < ents[j-1].mac.uint64(); j-- {
			ents[j] = ents[j-1]
		}
		if j != i {
			ents[j] = x
		}
	}
}
