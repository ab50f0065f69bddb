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
// An allocated offset is in its leaf, or it is a lone allocation of an
// inner node: an offset in the span of a child that is absent and not full,
// kept in the node's owners and offs (sorted by offset) instead of a chain
// of nodes down to its leaf. Scattered allocations (AllocateAddr in a /64,
// static IPv6 interface IDs) so cost about one entry each, not one node per
// level. A child span holds at most maxSpanLones lones, and a node at most
// loneLimit; past either, the lones of the span (of each span that holds
// two or more) move down into that child. So the child spans of a level-1
// node (64 offsets) are never covered by lones: an absent child that is not
// full always has a free offset.
//
// A blocked offset (excluded or reserved) far from any other is a lone
// too, with the owner "" (never an owner: OwnerKind refuses it), so that
// scattered exclusions cost about a lone each, not a chain of nodes down
// to their leaf: in ::/0 that chain was 19 nodes, 2.3 KB an exclusion.
// When a blocked lone moves into a leaf it sets only its full bit.
type node struct {
	// full: in a leaf, bit i is set when offset i is taken (allocated or
	// blocked); in an inner node, when child i's subtree is entirely taken.
	full uint64
	// present: in a leaf, bit i is set when offset i is allocated (owners
	// holds its owner); in an inner node, when child i is in kids.
	present uint64
	kids    []*node  // inner node: the present children, in order
	owners  []string // leaf: the owners of the allocated offsets, in order; inner node: the owners of the lones (see offs)
	// offs holds the lones' offsets, one word each, or two (Hi, Lo) in a
	// wide tree, ascending, the lones of children 0 to 31 from the start
	// and the others up to the end, with the free room between them (owners
	// alike, len the capacity, nil without lones): an insert or release
	// shifts half of its half, a quarter of the node's lones on average,
	// not half of them.
	offs []uint64
	// spans counts an inner node's lones per child span, 0 to
	// maxSpanLones: spans[k] holds bit k of each child's count. The lones
	// of child d are then found by popcounts (spanLones), not by a binary
	// search over the node's arrays: a scattered insert touches one line of
	// them, not one per probe.
	spans [3]uint64
}

// maxSpanLones is the most lones a node holds in one child span (a count
// spans can hold). Random offsets put about one lone in each span of the
// nodes that hold them, so the child is rarely materialized for this.
const maxSpanLones = 7

// lones returns how many lones n holds.
func (n *node) lones() int {
	return bits.OnesCount64(n.spans[0]) + 2*bits.OnesCount64(n.spans[1]) + 4*bits.OnesCount64(n.spans[2])
}

// low returns how many of n's lones are in the spans of children 0 to 31.
func (n *node) low() int {
	const m = 1<<32 - 1
	return bits.OnesCount64(n.spans[0]&m) + 2*bits.OnesCount64(n.spans[1]&m) + 4*bits.OnesCount64(n.spans[2]&m)
}

// place returns the index in owners (and, times the width, in offs) of
// lone i of n.
func (n *node) place(i int) int {
	if i < n.low() {
		return i
	}
	return i + len(n.owners) - n.lones()
}

// loneOwner returns the owner of lone i of n.
func (n *node) loneOwner(i int) string { return n.owners[n.place(i)] }

// spanLones returns the index range [i, j) of n's lones in child d's span.
func (n *node) spanLones(d uint) (i, j int) {
	below := uint64(1)<<d - 1
	i = bits.OnesCount64(n.spans[0]&below) + 2*bits.OnesCount64(n.spans[1]&below) + 4*bits.OnesCount64(n.spans[2]&below)
	k := int(n.spans[0]>>d&1 | (n.spans[1]>>d&1)<<1 | (n.spans[2]>>d&1)<<2)
	return i, i + k
}

// spanAdd counts one more lone in child d's span, which holds fewer than
// maxSpanLones.
func (n *node) spanAdd(d uint) {
	b := uint64(1) << d
	for k := range n.spans {
		n.spans[k] ^= b
		if n.spans[k]&b != 0 { // no carry
			return
		}
	}
}

// spanSub counts one lone less in child d's span, which holds one or more.
func (n *node) spanSub(d uint) {
	b := uint64(1) << d
	for k := range n.spans {
		n.spans[k] ^= b
		if n.spans[k]&b == 0 { // no borrow
			return
		}
	}
}

// loneLimit returns how many lones a node at level holds before the spans
// that hold two or more move down: enough that a level where allocations
// are about one per child span is not a level of one-lone nodes, few
// enough that the arrays a lone insert shifts stay short. Level-1 nodes
// keep 63, the limit from when it alone kept lones from covering a leaf's
// span of 64 offsets (maxSpanLones does that now).
func loneLimit(level uint) int {
	if level == 1 {
		return 63
	}
	return 256
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
	wide   bool // offsets need more than 64 bits: offs holds two words per lone
	// sunk lists the allocated lones that materialize moved from a node
	// at level hiLevel down to one below it, where the high word of their
	// offset no longer finds them (see hiFind): the pool moves their
	// owner index entries (ownerIndex.sink) and empties it.
	sunk []entry
}

// hiLevel is the lowest level whose node's digit lies entirely in the high
// word of an offset (bits 66 to 71): a descent that knows only an offset's
// Hi reaches the nodes at hiLevel and above.
const hiLevel = 11

// loneAt returns the offset of lone i of n.
func (t *tree) loneAt(n *node, i int) u128.U128 { return t.offAt(n, n.place(i)) }

// offAt returns the offset at place p of n's offs.
func (t *tree) offAt(n *node, p int) u128.U128 {
	if t.wide {
		return u128.U128{Hi: n.offs[2*p], Lo: n.offs[2*p+1]}
	}
	return u128.U128{Lo: n.offs[p]}
}

// loneFind returns the index of n's first lone >= o in child d's span (n's
// child d is absent, o in its span), or the end of the span's lones, and
// whether that lone is o.
func (t *tree) loneFind(n *node, d uint, o u128.U128) (int, bool) {
	i, j := n.spanLones(d)
	for ; i < j; i++ {
		if x := t.loneAt(n, i); !x.Less(o) {
			return i, x == o
		}
	}
	return i, false
}

// loneFits reports whether the span of n's absent child d takes one more
// lone.
func (t *tree) loneFits(n *node, d uint) bool {
	i, j := n.spanLones(d)
	return j-i < maxSpanLones
}

// loneInsert inserts o, in the span of n's absent child d, as lone i of n.
func (t *tree) loneInsert(n *node, i int, d uint, o u128.U128, owner string) {
	if k := n.lones(); k == len(n.owners) {
		// Grow by a quarter, not append's double: lones are most of a
		// scattered pool's tree, and a node's lones stop growing at random
		// (by an eighth, growth was a seventh of a scattered insert's time,
		// for 2 bytes an owner less).
		t.loneResize(n, k+k/4+1)
	}
	w := t.width()
	p := i // o's place: in the low half, lones i.. move up
	if d >= 32 {
		// In the high half, the lones before o move down.
		first := len(n.owners) - (n.lones() - n.low())
		p = i + len(n.owners) - n.lones() - 1
		copy(n.owners[first-1:p], n.owners[first:p+1])
		copy(n.offs[w*(first-1):w*p], n.offs[w*first:w*(p+1)])
	} else if a := n.low(); i < a {
		copy(n.owners[i+1:a+1], n.owners[i:a])
		copy(n.offs[w*(i+1):w*(a+1)], n.offs[w*i:w*a])
	}
	n.owners[p] = owner
	if t.wide {
		n.offs[2*p], n.offs[2*p+1] = o.Hi, o.Lo
	} else {
		n.offs[p] = o.Lo
	}
	n.spanAdd(d)
}

// loneResize moves n's lones to arrays of room for c or more (as much as
// their allocations' size class holds, which the allocator would round up
// to anyway), the low half at the start and the high half at the end.
func (t *tree) loneResize(n *node, c int) {
	w := t.width()
	owners := append([]string(nil), make([]string, c)...)
	offs := append([]uint64(nil), make([]uint64, w*c)...)
	room := min(cap(owners), cap(offs)/w)
	owners, offs = owners[:room], offs[:w*room]
	a, b := n.low(), n.lones()-n.low()
	copy(owners, n.owners[:a])
	copy(owners[room-b:], n.owners[len(n.owners)-b:])
	copy(offs, n.offs[:w*a])
	copy(offs[w*(room-b):], n.offs[len(n.offs)-w*b:])
	n.owners, n.offs = owners, offs
}

// width returns the words of a lone's offset in offs.
func (t *tree) width() int {
	if t.wide {
		return 2
	}
	return 1
}

// loneDelete drops lones i..j-1 of n, all in the span of child d, and
// counts them out of n.spans.
func (t *tree) loneDelete(n *node, d uint, i, j int) {
	k, g := n.lones(), j-i
	if g == k {
		n.owners, n.offs = nil, nil
	} else if w := t.width(); d < 32 {
		a := n.low() // lones j..a-1 move down
		copy(n.owners[i:], n.owners[j:a])
		clear(n.owners[a-g : a])
		copy(n.offs[w*i:], n.offs[w*j:w*a])
	} else {
		first := len(n.owners) - (k - n.low()) // the high half's lones before i move up
		pi, pj := n.place(i), n.place(j-1)+1
		copy(n.owners[first+g:pj], n.owners[first:pi])
		clear(n.owners[first : first+g])
		copy(n.offs[w*(first+g):w*pj], n.offs[w*first:w*pi])
	}
	for range g {
		n.spanSub(d)
	}
	if k -= g; len(n.owners) > 8 && k < len(n.owners)/4 {
		// Memory follows what stays allocated, not what once was.
		t.loneResize(n, k+k/8+1)
	}
}

// childSpan returns the first and last offsets of child d of the node at
// level whose span holds x.
func childSpan(x u128.U128, level, d uint) (a, b u128.U128) {
	a = digitBase(x, level, d)
	return a, a.Add(u128.From64(1).Lsh(6 * level).Sub64(1))
}

// materialize adds c (a new node if nil) as child d of n (at level >= 1),
// which must be absent and not full, and moves into it n's lones in its
// span (at most maxSpanLones, so c needs no split). The caller sets n's
// full bit if c is full.
func (t *tree) materialize(n *node, level, d uint, c *node) *node {
	if c == nil {
		c = &node{}
	}
	if i, j := n.spanLones(d); i < j {
		if level == 1 {
			for k := i; k < j; k++ {
				bit := uint64(1) << t.loneAt(n, k).Digit(0)
				c.full |= bit
				if owner := n.loneOwner(k); owner != "" { // else blocked: full, not present
					c.present |= bit
					c.owners = append(c.owners, owner)
				}
			}
		} else {
			// No room between the halves: places are indexes.
			w := t.width()
			c.owners = make([]string, j-i)
			c.offs = make([]uint64, w*(j-i))
			for k := range c.owners {
				c.owners[k] = n.loneOwner(i + k)
				copy(c.offs[w*k:w*(k+1)], n.offs[w*n.place(i+k):])
			}
			for k := range c.owners {
				c.spanAdd(t.offAt(c, k).Digit(level - 1))
			}
		}
		if level == hiLevel {
			for k := i; k < j; k++ {
				if owner := n.loneOwner(k); owner != "" {
					t.sunk = append(t.sunk, entry{t.loneAt(n, k), owner})
				}
			}
		}
		t.loneDelete(n, d, i, j)
	}
	n.kids = slices.Insert(n.kids, n.rank(d), c)
	n.present |= 1 << d
	return c
}

// split moves n's lones down when it holds more than loneLimit(level):
// those of each child span that holds two or more into that child (which
// does not come out full: it holds at most maxSpanLones).
func (t *tree) split(n *node, level uint) {
	if n.lones() <= loneLimit(level) {
		return
	}
	for m := n.spans[1] | n.spans[2]; m != 0; m &= m - 1 { // the spans of two or more
		t.materialize(n, level, uint(bits.TrailingZeros64(m)), nil)
	}
	if k := n.lones(); k > 0 && len(n.owners) > k+k/8+1 {
		t.loneResize(n, k)
	}
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
	t := tree{root: &node{}, levels: levels, wide: max.Hi != 0}
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
// used only while no offset is allocated, so it may drop children. The
// part of [lo, hi] in the span of an absent child becomes blocked lones
// of n (see node) when it is a few offsets that the span has room for.
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
			} else if i, j := n.spanLones(d); i < j {
				t.loneDelete(n, d, i, j) // blocked lones, now under a full bit
			}
			n.full |= bit
			continue
		}
		if n.full&bit != 0 {
			continue
		}
		clo, chi := lo, hi
		if clo.Less(cb) {
			clo = cb
		}
		if ce.Less(chi) {
			chi = ce
		}
		if n.present&bit == 0 {
			if t.blockLones(n, level, d, clo, chi) {
				continue
			}
			t.materialize(n, level, d, nil) // moves the span's blocked lones down
		}
		c := n.child(d)
		t.block(c, level-1, cb, clo, chi)
		if c.full == allOnes { // entirely blocked now: one bit is enough
			n.kids = slices.Delete(n.kids, n.rank(d), n.rank(d)+1)
			n.present &^= bit
			n.full |= bit
		}
	}
}

// blockLones makes [lo, hi], inside the span of n's absent child d, blocked
// lones of n, if the span has room for them (maxSpanLones), and reports
// whether it did.
func (t *tree) blockLones(n *node, level, d uint, lo, hi u128.U128) bool {
	k := hi.Sub(lo)
	if i, j := n.spanLones(d); k.Hi != 0 || k.Lo >= uint64(maxSpanLones-(j-i)) {
		return false
	}
	for o := lo; ; o = o.Add64(1) {
		i, _ := t.loneFind(n, d, o)
		t.loneInsert(n, i, d, o, "")
		if o == hi {
			break
		}
	}
	t.split(n, level)
	return true
}

// owner returns the owner of offset o.
func (t *tree) owner(o u128.U128) (string, bool) {
	n := t.root
	for level := t.levels - 1; level > 0; level-- {
		d := o.Digit(level)
		if n.present&(1<<d) == 0 {
			if i, ok := t.loneFind(n, d, o); ok {
				owner := n.loneOwner(i)
				return owner, owner != "" // "": blocked
			}
			return "", false
		}
		n = n.child(d)
	}
	d := o.Digit(0)
	if n.present&(1<<d) == 0 {
		return "", false
	}
	return n.owners[n.rank(d)], true
}

// hiLone reports whether the allocated offset o is a lone of a node at
// hiLevel or above, so that hiFind finds it from o.Hi and its owner. It
// does not allocate.
func (t *tree) hiLone(o u128.U128) bool {
	n := t.root
	for level := t.levels - 1; level >= hiLevel; level-- {
		d := o.Digit(level)
		if n.present&(1<<d) == 0 {
			return true
		}
		n = n.child(d)
	}
	return false
}

// hiFind returns the offset of owner if it is a lone of a node at hiLevel
// or above whose offset's high word is hi: the descent follows hi's digits
// and compares the owners of the (at most maxSpanLones) lones of the span
// it ends in. It does not allocate.
func (t *tree) hiFind(hi uint64, owner string) (u128.U128, bool) {
	if owner == "" {
		return u128.U128{}, false // a blocked lone's, never an owner
	}
	o := u128.U128{Hi: hi}
	n := t.root
	for level := t.levels - 1; level >= hiLevel; level-- {
		d := o.Digit(level)
		if n.present&(1<<d) == 0 {
			i, j := n.spanLones(d)
			for ; i < j; i++ {
				if x := t.loneAt(n, i); x.Hi == hi && n.loneOwner(i) == owner {
					return x, true
				}
			}
			return u128.U128{}, false
		}
		n = n.child(d)
	}
	return u128.U128{}, false
}

// insertAddr allocates the unblocked offset o to owner as a sparse insert
// (see insert), unless o is allocated: then it returns o's owner and false.
// It finds the place of o once for both.
func (t *tree) insertAddr(o u128.U128, owner string) (string, bool) {
	if n := t.hot; n != nil && o.Rsh(6) == t.hotKey {
		if d := o.Digit(0); n.present&(1<<d) != 0 {
			return n.owners[n.rank(d)], false
		}
		t.insert(o, owner, true)
		return "", true
	}
	n := t.root
	for level := t.levels - 1; level > 0; level-- {
		d := o.Digit(level)
		if n.present&(1<<d) == 0 {
			i, found := t.loneFind(n, d, o)
			if found {
				return n.loneOwner(i), false
			}
			if t.loneFits(n, d) {
				t.loneInsert(n, i, d, o, owner)
				t.split(n, level) // sets no full bit
				return "", true
			}
			t.materialize(n, level, d, nil) // not full: it holds maxSpanLones
		}
		n = n.child(d)
	}
	if d := o.Digit(0); n.present&(1<<d) != 0 {
		return n.owners[n.rank(d)], false
	}
	t.insert(o, owner, true) // into an existing leaf: one more descent
	return "", true
}

// insert allocates the free, unblocked offset o to owner. If sparse (an
// address the caller chose, which may be far from any other), an absent
// child on o's path does not make a chain of nodes: o becomes a lone of the
// node above it.
func (t *tree) insert(o u128.U128, owner string, sparse bool) {
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
			if sparse && t.loneFits(n, d) {
				i, _ := t.loneFind(n, d, o)
				t.loneInsert(n, i, d, o, owner)
				t.split(n, level) // sets no full bit
				return
			}
			var c *node
			if level == 1 {
				c, t.spare = t.spare, nil
			}
			t.materialize(n, level, d, c)
		}
		n = n.child(d)
	}
	t.hot, t.hotKey = n, key
	d := o.Digit(0)
	bit := uint64(1) << d
	n.owners = slices.Insert(n.owners, n.rank(d), owner)
	n.present |= bit
	n.full |= bit
	if n.full == allOnes && t.levels > 1 {
		path[1].full |= 1 << o.Digit(1)
		t.fullUp(&path, 1, o)
	}
}

// fullUp sets the full bits of o's path above level while the node at
// level (path[level], on o's path) is full.
func (t *tree) fullUp(path *[maxLevels]*node, level uint, o u128.U128) {
	for ; level+1 < t.levels && path[level].full == allOnes; level++ {
		path[level+1].full |= 1 << o.Digit(level+1)
	}
}

// fillLeaf allocates run, free offsets in ascending order that share a
// leaf holding no allocation yet. Restore uses it to build a pool in one
// pass over the sorted allocations; a run of one is a lone (see insert).
func (t *tree) fillLeaf(run []entry) {
	if len(run) == 1 {
		t.insert(run[0].o, run[0].owner, true)
		return
	}
	var path [maxLevels]*node
	o := run[0].o
	n := t.root
	for level := t.levels - 1; level > 0; level-- {
		path[level] = n
		d := o.Digit(level)
		bit := uint64(1) << d
		if n.present&bit == 0 {
			t.materialize(n, level, d, nil)
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
	if n.full == allOnes && t.levels > 1 {
		path[1].full |= 1 << o.Digit(1)
		t.fullUp(&path, 1, o)
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
			i, ok := t.loneFind(n, d, o)
			if !ok || n.loneOwner(i) == "" { // not a lone, or a blocked one
				return "", false
			}
			owner := n.loneOwner(i)
			t.loneDelete(n, d, i, i+1)
			// Drop n and the nodes above it that now hold nothing.
			for ; level+1 < t.levels && n.present == 0 && n.full == 0 && len(n.owners) == 0; level++ {
				p := path[level+1]
				pd := o.Digit(level + 1)
				r := p.rank(pd)
				p.kids = slices.Delete(p.kids, r, r+1)
				p.present &^= 1 << pd
				n = p
			}
			return owner, true
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
			empty = p.present == 0 && p.full == 0 && len(p.owners) == 0 && level < t.levels-1
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
		if n.present&bit == 0 { // free but for n's lones, and not all of them
			if o, ok := t.freeAt(n, level, from); ok {
				return o, true
			}
			break // lones take from to the end of the child
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

// freeAt returns the lowest offset >= from in the span of from's child of
// n (at level), which is absent and not full, that is not a lone of n; ok
// is false if lones take from to the end of the span.
func (t *tree) freeAt(n *node, level uint, from u128.U128) (o u128.U128, ok bool) {
	if len(n.owners) == 0 {
		return from, true
	}
	d := from.Digit(level)
	_, last := childSpan(from, level, d)
	o = from
	i, _ := t.loneFind(n, d, from)
	for _, j := n.spanLones(d); i < j && t.loneAt(n, i) == o; i++ {
		if o == last {
			return u128.U128{}, false
		}
		o = o.Add64(1)
	}
	return o, true
}

// lowestFree returns the lowest free offset in child j of n (at level),
// which must not be full; base is the child's first offset.
func (t *tree) lowestFree(n *node, level uint, base u128.U128, j uint) u128.U128 {
	for level > 0 {
		if n.present&(1<<j) == 0 {
			o, _ := t.freeAt(n, level, base)
			return o
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
	return t.eachIn(t.root, t.levels-1, u128.U128{}, yield)
}

func (t *tree) eachIn(n *node, level uint, base u128.U128, yield func(u128.U128, string) bool) bool {
	if level == 0 {
		for m, i := n.present, 0; m != 0; m &= m - 1 {
			if !yield(base.Add64(uint64(bits.TrailingZeros64(m))), n.owners[i]) {
				return false
			}
			i++
		}
		return true
	}
	l, k := 0, n.lones() // the next lone, and how many
	for m, i := n.present, 0; m != 0; m &= m - 1 {
		d := uint(bits.TrailingZeros64(m))
		cb := base.Add(u128.From64(uint64(d)).Lsh(6 * level))
		for ; l < k && t.loneAt(n, l).Less(cb); l++ {
			if owner := n.loneOwner(l); owner != "" && !yield(t.loneAt(n, l), owner) {
				return false
			}
		}
		if !t.eachIn(n.kids[i], level-1, cb, yield) {
			return false
		}
		i++
	}
	for ; l < k; l++ {
		if owner := n.loneOwner(l); owner != "" && !yield(t.loneAt(n, l), owner) {
			return false
		}
	}
	return true
}

// clone returns a deep copy of t (owner strings are shared: they are immutable).
func (t *tree) clone() tree {
	return tree{root: cloneNode(t.root), levels: t.levels, wide: t.wide}
}

func cloneNode(n *node) *node {
	c := &node{full: n.full, present: n.present, owners: slices.Clone(n.owners), offs: slices.Clone(n.offs), spans: n.spans}
	if n.kids != nil {
		c.kids = make([]*node, len(n.kids))
		for i, k := range n.kids {
			c.kids[i] = cloneNode(k)
		}
	}
	return c
}
