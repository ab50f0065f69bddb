package ipam

import "hash/maphash"

// ownerSet finds repeated owners among a bulk input's entries. It is an
// open-addressing table of hashes and entry indexes, with no pointers for
// the collector to scan: cheaper than a map[string] when the entries are
// thrown away after the check (ParseAllocated) or copied into the pool's
// own index once (Restore). Equal hashes are confirmed by comparing the
// owners, so the seed changes the speed, never the result.
type ownerSet struct {
	seed  maphash.Seed
	slots []uint64 // hash>>32<<32 | index+1; 0 is empty
	mask  uint64
}

func newOwnerSet(n int) ownerSet {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	return ownerSet{seed: maphash.MakeSeed(), slots: make([]uint64, size), mask: uint64(size - 1)}
}

// add records owner as held by entries[i]. If an earlier entry holds
// owner, it records nothing and returns that entry's index and true.
func (s *ownerSet) add(owner string, i int32, entries []entry) (int32, bool) {
	h := maphash.String(s.seed, owner)
	tag := h &^ (1<<32 - 1)
	for j := h & s.mask; ; j = (j + 1) & s.mask {
		slot := s.slots[j]
		if slot == 0 {
			s.slots[j] = tag | uint64(i+1)
			return 0, false
		}
		if slot&^(1<<32-1) == tag {
			if k := int32(slot&(1<<32-1)) - 1; entries[k].owner == owner {
				return k, true
			}
		}
	}
}
