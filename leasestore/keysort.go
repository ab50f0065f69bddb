package leasestore

import (
	"math/bits"
	"slices"
)

// The packed tables are sorted as plain uint64 keys: an MSD radix sort
// whose first pass writes to few enough places for the TLB, and whose
// later passes work inside buckets that fit in cache.

const (
	keyDigitBits    = 8  // the first pass of sortKeysInto
	bucketDigitBits = 11 // the passes of sortKeys
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
