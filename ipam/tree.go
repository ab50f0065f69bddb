package ipam

import (
	"math/bits"
	"slices"

	"github.com/vmnetkit/vmnetkit/internal/u128"
)

// maxLevels is the height of a tree over 128-bit offsets (22*6 >= 128).
const maxLevels = 22

const allOnes = ^uint64(0)

// node is a node of the offset tree, a sparse 64-ary radix tree over the
// offsets of a pool. A leaf (level 0) holds 64 consecutive offsets; a node at
// level l holds 64 children, each covering 64^l offsets.
//
// A child that is absent and not full is entirely free; absent and full, it
// is entirely blocked (excluded, reserved or past the end of the range), so a
// blocked range costs memory proportional to its boundary, not its size.
// Allocated offsets are always materialized down to their leaf.
type node struct {
	// full: in a leaf, bit i is set when offset i is taken (allocated or
	// blocked); in an inner node, when child i's subtree is entirely taken.
	full uint64
	// present: in a leaf, bit i is set when offset i is allocated (owners
	// holds its owner); in an inner node, when child i is in kids.
	present uint64
	kids    []*node  // inner node: the present children, in order
	owners  []string // leaf: the owners of the allocated offsets, in order
}

// rank returns the index in kids or owners of bit i of present.
func (n *node) rank(i uint) int {
	return bits.OnesCount64(n.present & (1<<i - 1))
}

func (n *node) child(i uint) *node { return n.kids[n.rank(i)] }

// tree is the set of taken offsets of a pool, with the owners of the
// allocated ones.
type tree struct {
	root   *node
	levels uint  // the root is at level levels-1, the leaves at level 0
	spare  *node // a pruned leaf kept for reuse, so alternating Allocate and Release does not allocate
	// hot is the leaf of the last insert (nil once pruned) and hotKey its
	// offsets >> 6: consecutive allocations in one leaf, the common case,
	// skip both descents.
	hot    *node
	hotKey u128.U128
}

// digitBase returns o with its digits below level replaced by d and zeros.
func digitBase(o u128.U128, level, d uint) u128.U128 {
	shift := 6 * level
	return o.Rsh(shift + 6).Lsh(shift + 6).Add(u128.From64(uint64(d)).Lsh(shift))
}

// rangeMask returns the bits a..b (inclusive, a <= b <= 63).
func rangeMask(a, b uint) uint64 {
	return allOnes << a & (allOnes >> (63 - b))
}

func newTree(levels uint, max u128.U128, blocked []span) tree {
	t := tree{root: &node{}, levels: levels}
	if 6*levels > 128 {
		// The root's digits beyond bit 127 do not exist.
		t.root.full = allOnes << (1 << (128 - 6*(levels-1)))
	}
	for _, sp := range blocked {
		t.block(t.root, levels-1, u128.U128{}, sp.lo, sp.hi)
	}
	if max != u128.Max {
		end := u128.Max
		if 6*levels < 128 {
			end = u128.From64(1).Lsh(6 * levels).Sub64(1)
		}
		if max.Less(end) {
			t.block(t.root, levels-1, u128.U128{}, max.Add64(1), end)
		}
	}
	return t
}

// block marks [lo, hi] taken in n's subtree, which starts at base. It is
// used only while no offset is allocated, so it may drop children.
func (t *tree) block(n *node, level uint, base, lo, hi u128.U128) {
	dlo, dhi := lo.Sub(base).Rsh(6*level).Lo, hi.Sub(base).Rsh(6*level).Lo
	if level == 0 {
		n.full |= rangeMask(uint(dlo), uint(dhi))
		return
	}
	shift := 6 * level
	for d := uint(dlo); d <= uint(dhi); d++ {
		cb := base.Add(u128.From64(uint64(d)).Lsh(shift))
		ce := cb.Add(u128.From64(1).Lsh(shift).Sub64(1))
		bit := uint64(1) << d
		if !cb.Less(lo) && !hi.Less(ce) {
			if n.present&bit != 0 {
				n.kids = slices.Delete(n.kids, n.rank(d), n.rank(d)+1)
				n.present &^= bit
			}
			n.full |= bit
			continue
		}
		if n.full&bit != 0 {
			continue
		}
		if n.present&bit == 0 {
			n.kids = slices.Insert(n.kids, n.rank(d), &node{})
			n.present |= bit
		}
		c := n.child(d)
		clo, chi := lo, hi
		if clo.Less(cb) {
			clo = cb
		}
		if ce.Less(chi) {
			chi = ce
		}
		t.block(c, level-1, cb, clo, chi)
		if c.full == allOnes { // entirely blocked now: one bit is enough
			n.kids = slices.Delete(n.kids, n.rank(d), n.rank(d)+1)
			n.present &^= bit
			n.full |= bit
		}
	}
}

// taken reports whether offset o is taken.
func (t *tree) taken(o u128.U128) bool {
	n := t.root
	for level := t.levels - 1; ; level-- {
		d := o.Digit(level)
		bit := uint64(1) << d
		if level == 0 || n.full&bit != 0 {
			return n.full&bit != 0
		}
		if n.present&bit == 0 {
			return false
		}
		n = n.child(d)
	}
}

// leaf returns the leaf that holds o, or nil if it is not materialized.
func (t *tree) leaf(o u128.U128) *node {
	n := t.root
	for level := t.levels - 1; level > 0; level-- {
		d := o.Digit(level)
		if n.present&(1<<d) == 0 {
			return nil
		}
		n = n.child(d)
	}
	return n
}

// owner returns the owner of offset o.
func (t *tree) owner(o u128.U128) (string, bool) {
	n := t.leaf(o)
	if n == nil {
		return "", false
	}
	d := o.Digit(0)
	if n.present&(1<<d) == 0 {
		return "", false
	}
	return n.owners[n.rank(d)], true
}

// insert allocates the free, unblocked offset o to owner.
func (t *tree) insert(o u128.U128, owner string) {
	key := o.Rsh(6)
	if n := t.hot; n != nil && key == t.hotKey {
		d := o.Digit(0)
		bit := uint64(1) << d
		if n.full|bit != allOnes { // the leaf stays not full: no parent to update
			n.owners = slices.Insert(n.owners, n.rank(d), owner)
			n.present |= bit
			n.full |= bit
			return
		}
	}
	var path [maxLevels]*node
	n := t.root
	for level := t.levels - 1; level > 0; level-- {
		path[level] = n
		d := o.Digit(level)
		bit := uint64(1) << d
		if n.present&bit == 0 {
			c := t.spare
			if c != nil && level == 1 {
				t.spare = nil
			} else {
				c = &node{}
			}
			n.kids = slices.Insert(n.kids, n.rank(d), c)
			n.present |= bit
		}
		n = n.child(d)
	}
	t.hot, t.hotKey = n, key
	d := o.Digit(0)
	bit := uint64(1) << d
	n.owners = slices.Insert(n.owners, n.rank(d), owner)
	n.present |= bit
	n.full |= bit
	for level := uint(1); level < t.levels && n.full == allOnes; level++ {
		n = path[level]
		n.full |= 1 << o.Digit(level)
	}
}

// fillLeaf allocates run, free offsets in ascending order that share a
// leaf holding no allocation yet. Restore uses it to build a pool in one
// pass over the sorted allocations.
func (t *tree) fillLeaf(run []entry) {
	var path [maxLevels]*node
	o := run[0].o
	n := t.root
	for level := t.levels - 1; level > 0; level-- {
		path[level] = n
		d := o.Digit(level)
		bit := uint64(1) << d
		if n.present&bit == 0 {
			n.kids = slices.Insert(n.kids, n.rank(d), &node{})
			n.present |= bit
		}
		n = n.child(d)
	}
	// Capacity as append would grow it, so that a later Allocate into this
	// leaf does not reallocate at once (a leaf never holds more than 64).
	n.owners = slices.Grow(n.owners, 1<<bits.Len(uint(len(run)-1)))
	for _, e := range run {
		bit := uint64(1) << (e.o.Lo & 63)
		n.present |= bit
		n.full |= bit
		n.owners = append(n.owners, e.owner)
	}
	for level := uint(1); level < t.levels && n.full == allOnes; level++ {
		n = path[level]
		n.full |= 1 << o.Digit(level)
	}
}

// remove frees the allocated offset o and returns its owner.
func (t *tree) remove(o u128.U128) (string, bool) {
	var path [maxLevels]*node
	n := t.root
	for level := t.levels - 1; level > 0; level-- {
		path[level] = n
		d := o.Digit(level)
		if n.present&(1<<d) == 0 {
			return "", false
		}
		n = n.child(d)
	}
	d := o.Digit(0)
	bit := uint64(1) << d
	if n.present&bit == 0 {
		return "", false
	}
	i := n.rank(d)
	owner := n.owners[i]
	n.owners = slices.Delete(n.owners, i, i+1)
	wasFull := n.full == allOnes
	n.present &^= bit
	n.full &^= bit
	empty := n.full == 0
	for level := uint(1); level < t.levels && (wasFull || empty); level++ {
		p := path[level]
		pd := o.Digit(level)
		pbit := uint64(1) << pd
		wasFull = p.full == allOnes
		p.full &^= pbit
		if empty {
			// Drop the empty child; keep one leaf for reuse.
			if level == 1 {
				n.owners = n.owners[:0]
				t.spare = n
				if t.hot == n {
					t.hot = nil
				}
			}
			r := p.rank(pd)
			p.kids = slices.Delete(p.kids, r, r+1)
			p.present &^= pbit
			empty = p.present == 0 && p.full == 0 && level < t.levels-1
		}
		n = p
	}
	return owner, true
}

// nextFree returns the lowest free offset >= from, if any.
func (t *tree) nextFree(from u128.U128) (u128.U128, bool) {
	if n := t.hot; n != nil && from.Rsh(6) == t.hotKey {
		if m := n.full | (1<<from.Digit(0) - 1); m != allOnes {
			return digitBase(from, 0, uint(bits.TrailingZeros64(^m))), true
		}
	}
	var path [maxLevels]*node
	n := t.root
	level := t.levels - 1
	for {
		path[level] = n
		d := from.Digit(level)
		if level == 0 {
			if m := n.full | (1<<d - 1); m != allOnes {
				return digitBase(from, 0, uint(bits.TrailingZeros64(^m))), true
			}
			level = 1
			break
		}
		bit := uint64(1) << d
		if n.full&bit != 0 {
			break
		}
		if n.present&bit == 0 {
			return from, true // the whole child is free
		}
		n = n.child(d)
		level--
	}
	// Everything from `from` to the end of its child at this level is
	// taken: find the next child that is not full, climbing as needed.
	for ; level < t.levels; level++ {
		n = path[level]
		d := from.Digit(level)
		m := n.full | allOnes>>(63-d) // d and below count as taken
		if m == allOnes {
			continue
		}
		j := uint(bits.TrailingZeros64(^m))
		return t.lowestFree(n, level, digitBase(from, level, j), j), true
	}
	return u128.U128{}, false
}

// lowestFree returns the lowest free offset in child j of n (at level),
// which must not be full; base is the child's first offset.
func (t *tree) lowestFree(n *node, level uint, base u128.U128, j uint) u128.U128 {
	for level > 0 {
		if n.present&(1<<j) == 0 {
			return base
		}
		n = n.child(j)
		level--
		j = uint(bits.TrailingZeros64(^n.full))
		base = base.Add(u128.From64(uint64(j)).Lsh(6 * level))
	}
	return base
}

// each calls yield for every allocated offset in ascending order until
// yield returns false; it reports whether iteration ran to the end.
func (t *tree) each(yield func(o u128.U128, owner string) bool) bool {
	return eachIn(t.root, t.levels-1, u128.U128{}, yield)
}

func eachIn(n *node, level uint, base u128.U128, yield func(u128.U128, string) bool) bool {
	if level == 0 {
		for m, i := n.present, 0; m != 0; m &= m - 1 {
			if !yield(base.Add64(uint64(bits.TrailingZeros64(m))), n.owners[i]) {
				return false
			}
			i++
		}
		return true
	}
	for m, i := n.present, 0; m != 0; m &= m - 1 {
		d := uint(bits.TrailingZeros64(m))
		if !eachIn(n.kids[i], level-1, base.Add(u128.From64(uint64(d)).Lsh(6*level)), yield) {
			return false
		}
		i++
	}
	return true
}

// clone returns a deep copy of t (owner strings are shared: they are immutable).
func (t *tree) clone() tree {
	return tree{root: cloneNode(t.root), levels: t.levels}
}

func cloneNode(n *node) *node {
	c := &node{full: n.full, present: n.present, owners: slices.Clone(n.owners)}
	if n.kids != nil {
		c.kids = make([]*node, len(n.kids))
		for i, k := range n.kids {
			c.kids[i] = cloneNode(k)
		}
	}
	return c
}
