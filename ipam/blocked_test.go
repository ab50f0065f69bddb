package ipam

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/u128"
	"go4.org/netipx"
)

// TestScatteredExcludeCostsAlikeInAnyPrefix (issue 26): a pool with
// 100,000 single-address exclusions scattered at random retained 222 bytes
// an exclusion in a /8, 1 KB in a /64 and 2.3 KB in ::/0, where each was a
// chain of nodes down to its leaf. Now each is about one lone of the
// tree, so ::/0 and a /64 retain within twice what a /8 does.
func TestScatteredExcludeCostsAlikeInAnyPrefix(t *testing.T) {
	const n = 100_000
	per := map[string]float64{}
	for _, c := range scatteredExcludePrefixes {
		spec := scatteredExcludes(c.prefix, n)
		per[c.name] = retainedPerExclude(t, spec)
		// The tree that holds them is sound, and hands out none of them.
		p, _ := New(spec)
		if err := checkTree(&p.t); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, e := range spec.Exclude[:1000] {
			if o, ok := p.Lookup(e.From()); ok {
				t.Fatalf("%s: Lookup(%v) = %q of an excluded address", c.name, e.From(), o)
			}
			if err := p.AllocateAddr(e.From(), "x"); !errors.Is(err, ErrExcluded) {
				t.Fatalf("%s: AllocateAddr(%v) = %v, want ErrExcluded", c.name, e.From(), err)
			}
		}
	}
	t.Logf("retained bytes per exclude: %v", per)
	for _, name := range []string{"v6-64", "v6-0"} {
		if per[name] > 2*per["v4-8"] {
			t.Errorf("%s retains %.0f bytes an exclude, more than twice the /8's %.0f", name, per[name], per["v4-8"])
		}
	}
}

// TestBlockedLones: exclusions and reservations of a few addresses, far
// apart in a wide pool, many in one 64-address block and more than a node
// keeps, are blocked lones of the tree: a Lowest pool hands out exactly
// the addresses between them, in order, never one of them; Lookup, All,
// AllocateAddr and Release do not take them for allocations; and the tree
// keeps its invariants (checkTree) as it fills and empties.
func TestBlockedLones(t *testing.T) {
	for _, prefix := range []string{"::/0", "2001:db8::/64", "10.0.0.0/8"} {
		t.Run(prefix, func(t *testing.T) {
			p := netip.MustParsePrefix(prefix)
			start := u128.FromAddr(p.Addr()).Add64(1 << 20)
			at := func(o uint64) netip.Addr { return start.Add64(o).Addr(p.Addr().Is4()) }
			spec := Spec{Prefix: p, Start: at(0)}
			blocked := map[netip.Addr]bool{}
			// Clusters 5,000 apart (one a leaf's span, one a level-1
			// node's), each of singles, a pair and a run of seven in one
			// 64-address block, and a reservation; 400 clusters put more
			// than loneLimit lones in a node.
			for c := range uint64(400) {
				base := c * 5000
				for _, r := range [][2]uint64{{3, 3}, {5, 5}, {9, 10}, {20, 26}, {40, 40}, {61, 62}, {64 + 7, 64 + 7}} {
					spec.Exclude = append(spec.Exclude, netipx.IPRangeFrom(at(base+r[0]), at(base+r[1])))
					for o := r[0]; o <= r[1]; o++ {
						blocked[at(base+o)] = true
					}
				}
				spec.Reserved = append(spec.Reserved, at(base+30))
				blocked[at(base+30)] = true
			}
			pool, err := New(spec)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkTree(&pool.t); err != nil {
				t.Fatal(err)
			}
			// Lowest hands out what is not blocked, in order, over 3
			// clusters.
			var want []netip.Addr
			for o := uint64(0); o < 3*5000+100; o++ {
				if !blocked[at(o)] {
					want = append(want, at(o))
				}
			}
			for i, w := range want {
				got, err := pool.Allocate(w.String())
				if err != nil || got != w {
					t.Fatalf("Allocate #%d = %v, %v; want %v", i, got, err, w)
				}
			}
			if err := checkTree(&pool.t); err != nil {
				t.Fatal(err)
			}
			n := 0
			for a := range pool.All() {
				if blocked[a] {
					t.Fatalf("All() yields blocked %v", a)
				}
				n++
			}
			if n != len(want) {
				t.Fatalf("All() yields %d, want %d", n, len(want))
			}
			for a := range blocked {
				if o, ok := pool.Lookup(a); ok {
					t.Fatalf("Lookup(%v) = %q, true; it is blocked", a, o)
				}
				if err := pool.AllocateAddr(a, "x"); !errors.Is(err, ErrExcluded) && !errors.Is(err, ErrReserved) {
					t.Fatalf("AllocateAddr(%v) = %v, want ErrExcluded or ErrReserved", a, err)
				}
				if _, err := pool.Release(a); !errors.Is(err, ErrNotAllocated) {
					t.Fatalf("Release(%v) = %v, want ErrNotAllocated", a, err)
				}
			}
			// Scattered AllocateAddr beside the blocked lones of far
			// clusters, then everything released.
			for c := uint64(100); c < 400; c += 7 {
				if err := pool.AllocateAddr(at(c*5000+4), "far"+at(c*5000+4).String()); err != nil {
					t.Fatal(err)
				}
			}
			if err := checkTree(&pool.t); err != nil {
				t.Fatal(err)
			}
			var held []netip.Addr
			for a := range pool.All() {
				held = append(held, a)
			}
			for _, a := range held {
				if _, err := pool.Release(a); err != nil {
					t.Fatal(err)
				}
			}
			if err := checkTree(&pool.t); err != nil {
				t.Fatal(err)
			}
			if pool.Len() != 0 {
				t.Fatalf("Len = %d after releasing all", pool.Len())
			}
			if got, err := pool.Allocate("again"); err != nil || got != at(0) {
				t.Fatalf("Allocate after release = %v, %v; want %v", got, err, at(0))
			}
		})
	}
}
