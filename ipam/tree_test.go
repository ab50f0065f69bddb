package ipam

import (
	"fmt"
	"math/bits"
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/u128"
	"go4.org/netipx"
)

// TestPruneKeepsBlockedSubtrees: a node that loses its last allocated leaf
// but still has entirely blocked children must stay, or the blocked
// addresses would become free.
func TestPruneKeepsBlockedSubtrees(t *testing.T) {
	// Offsets 64..127 (10.0.0.65-10.0.0.128) are a whole blocked leaf.
	p, err := New(Spec{Prefix: mpp("10.0.0.0/8"), Exclude: []netipx.IPRange{rng("10.0.0.65", "10.0.0.128")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AllocateAddr(mpa("10.0.0.129"), "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Release(mpa("10.0.0.129")); err != nil {
		t.Fatal(err)
	}
	for i := range 70 {
		a, err := p.Allocate(fmt.Sprint("o", i))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Check(a); err != nil {
			t.Fatalf("owner %d got %v: %v", i, a, err)
		}
	}
	if a, _ := p.AddrOf("o69"); a != mpa("10.0.0.134") {
		t.Fatalf("70th address = %v, want 10.0.0.134", a)
	}
}

// checkTree checks the offset tree's structure: no empty node below the
// root, full bits exact for present children, and lones sorted, each in the
// span of a child that is absent and not full, never covering such a span,
// counted exactly per span in spans (at most maxSpanLones each), and
// within loneLimit unless they are one per child span.
func checkTree(t *tree) error {
	return checkNode(t, t.root, t.levels-1, u128.U128{}, true)
}

func checkNode(t *tree, n *node, level uint, base u128.U128, root bool) error {
	if !root && n.present == 0 && n.full == 0 && len(n.owners) == 0 {
		return fmt.Errorf("empty node at level %d, base %v", level, base)
	}
	if level == 0 {
		if n.present&^n.full != 0 || bits.OnesCount64(n.present) != len(n.owners) || len(n.offs) != 0 || n.spans != [3]uint64{} {
			return fmt.Errorf("leaf at %v: present %x full %x, %d owners, %d offs, spans %x", base, n.present, n.full, len(n.owners), len(n.offs), n.spans)
		}
		return nil
	}
	if bits.OnesCount64(n.present) != len(n.kids) {
		return fmt.Errorf("node at level %d, base %v: present %x, %d kids", level, base, n.present, len(n.kids))
	}
	w := 1
	if t.wide {
		w = 2
	}
	lones := n.lones()
	if len(n.offs) != w*len(n.owners) || len(n.owners) < lones || (lones == 0) != (n.owners == nil) {
		return fmt.Errorf("node at level %d, base %v: %d lones, %d owners, %d offs", level, base, lones, len(n.owners), len(n.offs))
	}
	for p := n.low(); p < len(n.owners)-(lones-n.low()); p++ {
		if n.owners[p] != "" {
			return fmt.Errorf("node at level %d, base %v: %q between the halves at %d", level, base, n.owners[p], p)
		}
	}
	perDigit := map[uint]int{}
	for i := range lones {
		o := t.loneAt(n, i)
		if i > 0 && !t.loneAt(n, i-1).Less(o) {
			return fmt.Errorf("node at level %d, base %v: lones not ascending at %d", level, base, i)
		}
		if o.Rsh(6*(level+1)) != base.Rsh(6*(level+1)) {
			return fmt.Errorf("node at level %d, base %v: lone %v outside its span", level, base, o)
		}
		d := o.Digit(level)
		if (n.present|n.full)&(1<<d) != 0 {
			return fmt.Errorf("node at level %d, base %v: lone %v in a present or full child", level, base, o)
		}
		perDigit[d]++
		if level == 1 && perDigit[d] >= 64 {
			return fmt.Errorf("node at level 1, base %v: child %d covered by lones", base, d)
		}
	}
	for d := range uint(64) {
		if i, j := n.spanLones(d); j-i != perDigit[d] || j-i > maxSpanLones {
			return fmt.Errorf("node at level %d, base %v: child %d holds %d lones, spans count %d (lones %d..%d)", level, base, d, perDigit[d], j-i, i, j)
		}
	}
	if lones > loneLimit(level) && len(perDigit) != lones {
		return fmt.Errorf("node at level %d, base %v: %d lones over the limit", level, base, lones)
	}
	for m, i := n.present, 0; m != 0; m &= m - 1 {
		d := uint(bits.TrailingZeros64(m))
		c := n.kids[i]
		i++
		if (c.full == allOnes) != (n.full&(1<<d) != 0) {
			return fmt.Errorf("node at level %d, base %v: child %d full %x, full bit %v", level, base, d, c.full, n.full&(1<<d) != 0)
		}
		if err := checkNode(t, c, level-1, base.Add(u128.From64(uint64(d)).Lsh(6*level)), false); err != nil {
			return err
		}
	}
	return nil
}

// TestLones drives the lone allocations through the limits: a node past
// loneLimit splits, Release drops the nodes that hold nothing more, and a
// Sequential search whose start is followed by lones to the end of a leaf
// moves on to the next leaf.
func TestLones(t *testing.T) {
	check := func(p *Pool, want map[netip.Addr]string) {
		t.Helper()
		if err := checkTree(&p.t); err != nil {
			t.Fatal(err)
		}
		got := map[netip.Addr]string{}
		for a, o := range p.All() {
			got[a] = o
		}
		if len(got) != len(want) {
			t.Fatalf("All() holds %d, want %d", len(got), len(want))
		}
		for a, o := range want {
			if got[a] != o {
				t.Fatalf("All()[%v] = %q, want %q", a, got[a], o)
			}
			if lo, ok := p.Lookup(a); !ok || lo != o {
				t.Fatalf("Lookup(%v) = %q, %v; want %q", a, lo, ok, o)
			}
		}
	}
	for _, prefix := range []string{"2001:db8::/64", "::/0", "10.0.0.0/8"} {
		p, err := New(Spec{Prefix: netip.MustParsePrefix(prefix)})
		if err != nil {
			t.Fatal(err)
		}
		base := u128.FromAddr(p.Prefix().Addr()).Add64(1)
		want := map[netip.Addr]string{}
		var addrs []netip.Addr
		for k := range uint64(600) {
			a := base.Add64(k * 4097 % (1 << 24)).Addr(p.Prefix().Addr().Is4())
			owner := fmt.Sprint("s", k)
			if err := p.AllocateAddr(a, owner); err != nil {
				t.Fatal(err)
			}
			want[a] = owner
			addrs = append(addrs, a)
		}
		check(p, want)
		for i, a := range addrs {
			if i%3 == 0 {
				continue
			}
			if _, err := p.Release(a); err != nil {
				t.Fatal(err)
			}
			delete(want, a)
		}
		check(p, want)
		// The lones' arrays shrink with them.
		var capacity, nodes int
		var walk func(n *node, level uint)
		walk = func(n *node, level uint) {
			if level > 0 {
				capacity += cap(n.owners)
				nodes++
			}
			for _, k := range n.kids {
				walk(k, level-1)
			}
		}
		walk(p.t.root, p.t.levels-1)
		if capacity > 4*len(want)+8*nodes {
			t.Fatalf("%s: %d lones in %d nodes hold arrays for %d", prefix, len(want), nodes, capacity)
		}
		for i, a := range addrs {
			if i%3 != 0 {
				continue
			}
			if _, err := p.Release(a); err != nil {
				t.Fatal(err)
			}
			delete(want, a)
		}
		check(p, want)
		fresh, _ := New(p.Spec())
		if p.t.root.present != fresh.t.root.present || p.t.root.lones() != fresh.t.root.lones() {
			t.Fatalf("%s: emptied pool's root holds %x, %d lones; want %x, %d (blocked)", prefix, p.t.root.present, p.t.root.lones(), fresh.t.root.present, fresh.t.root.lones())
		}
	}

	// Offsets 0..64 dense, 64 released (its leaf dropped), 65..127 given
	// by AllocateAddr: the first maxSpanLones are lones of the level-1
	// node, the next brings the leaf back with them. The next Sequential
	// address is offset 128; AllocateAddr of 64 then fills the leaf.
	at := func(o uint64) netip.Addr { return u128.FromAddr(mpa("10.0.0.1")).Add64(o).Addr(true) }
	sequential := func(dense, released uint64) *Pool {
		t.Helper()
		p, err := New(Spec{Prefix: mpp("10.0.0.0/8"), Strategy: Sequential})
		if err != nil {
			t.Fatal(err)
		}
		for i := range dense {
			if _, err := p.Allocate(fmt.Sprint("d", i)); err != nil {
				t.Fatal(err)
			}
		}
		for o := released; o < dense; o++ {
			if _, err := p.Release(at(o)); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	level1 := func(p *Pool) *node { return p.t.root.child(0).child(0) } // the level-1 node over offsets 0..4095
	p := sequential(65, 64)
	for o := uint64(65); o < 128; o++ {
		if err := p.AllocateAddr(at(o), fmt.Sprint("l", o)); err != nil {
			t.Fatal(err)
		}
		if err := checkTree(&p.t); err != nil {
			t.Fatal(err)
		}
		n := level1(p)
		if lones := int(o - 64); lones <= maxSpanLones {
			if n.lones() != lones || n.present&2 != 0 {
				t.Fatalf("after %d lones in leaf 1's span: %d lones, leaf present %v", lones, n.lones(), n.present&2 != 0)
			}
		} else if n.lones() != 0 || n.present&2 == 0 {
			t.Fatalf("after %d allocations in leaf 1's span: %d lones, leaf present %v", lones, n.lones(), n.present&2 != 0)
		}
	}
	if a, err := p.Allocate("next"); err != nil || a != at(128) {
		t.Fatalf("Allocate = %v, %v; want %v", a, err, at(128))
	}
	if a, err := p.Allocate("after"); err != nil || a != at(129) {
		t.Fatalf("Allocate = %v, %v; want %v", a, err, at(129))
	}
	if err := p.AllocateAddr(at(64), "last"); err != nil {
		t.Fatal(err)
	}
	if err := checkTree(&p.t); err != nil {
		t.Fatal(err)
	}
	if level1(p).full&2 == 0 {
		t.Fatal("leaf 1 is full, its full bit is not set")
	}

	// Offsets 0..120 dense, 64..120 released (leaf 1 dropped), lones at
	// 121..127: a Sequential search from 121 finds lones to the end of the
	// leaf's span and moves on to offset 128.
	p = sequential(121, 64)
	for o := uint64(121); o < 128; o++ {
		if err := p.AllocateAddr(at(o), fmt.Sprint("l", o)); err != nil {
			t.Fatal(err)
		}
	}
	if err := checkTree(&p.t); err != nil {
		t.Fatal(err)
	}
	if n := level1(p); n.lones() != 7 || n.present&2 != 0 {
		t.Fatalf("level-1 node holds %d lones, leaf 1 present %v; want 7 lones, no leaf", n.lones(), n.present&2 != 0)
	}
	if a, err := p.Allocate("next"); err != nil || a != at(128) {
		t.Fatalf("Allocate = %v, %v; want %v", a, err, at(128))
	}
}
