package ipam

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/internal/u128"
	"go4.org/netipx"
)

// TestOwnerIndexKeepsHighLonesByHi: in ::/0, an owner whose address is a
// lone high in the tree is kept by the high word of its offset (the 16-byte
// slots that make scattered owners in ::/0 cost about what dense ones do in
// a /64); when later allocations make such lones sink below hiLevel, their
// entries move to the whole-offset map; every owner is found by AddrOf,
// Lookup, a clone and a restored copy, and released by ReleaseOwner,
// whatever the case, colliding hashes included.
func TestOwnerIndexKeepsHighLonesByHi(t *testing.T) {
	prefix := netip.MustParsePrefix("::/0")
	base := u128.FromAddr(netip.MustParseAddr("2001:db8::1")) // offset 2001:db8:: (offsets count from ::1)
	scattered := func(n int) []u128.U128 {
		r := xorshift(37)
		out := make([]u128.U128, n)
		for i := range out {
			out[i] = u128.U128{Hi: r.next()>>2 | 1<<61, Lo: r.next()} // 2000::/3: never an IPv4-mapped address
		}
		return out
	}
	// stride returns n offsets 2^60 apart: one child span of a level-11
	// node (2^66 offsets) holds them all, so the eighth sinks them to
	// level 10, each then in a span of its own.
	stride := func(n int) []u128.U128 {
		out := make([]u128.U128, n)
		for i := range out {
			out[i] = base.Add(u128.From64(uint64(i)).Lsh(60))
		}
		return out
	}
	// spread returns n offsets over the 64 child spans of one level-11
	// node, a few in each: past 256 lones the node splits, and the owner
	// whose insert splits it sinks too.
	spread := func(n int) []u128.U128 {
		out := make([]u128.U128, n)
		for i := range out {
			out[i] = base.Add(u128.From64(uint64(i % 64)).Lsh(66)).Add(u128.From64(uint64(i / 64)).Lsh(60))
		}
		return out
	}
	for _, c := range []struct {
		name   string
		offs   []u128.U128
		narrow bool // hash cut to two bits: most owners collide
		// With narrow, which owners the maps keep depends on the
		// hashes' seed: the counts below are not checked.
		wantHi   int // entries kept by Hi at the end
		wantWide int // entries kept by their whole offset
	}{
		{name: "scattered", offs: scattered(400), wantHi: 400},
		{name: "sunk below hiLevel", offs: stride(40), wantWide: 40},
		{name: "scattered, then sunk", offs: append(scattered(300), stride(40)...), wantHi: 300, wantWide: 40},
		{name: "split below hiLevel", offs: spread(300), wantWide: 300},
		{name: "colliding hashes", offs: append(scattered(50), stride(40)...), narrow: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(Spec{Prefix: prefix})
			if err != nil {
				t.Fatal(err)
			}
			if c.narrow {
				p.owners.mask = 3
			}
			want := map[string]netip.Addr{}
			for i, o := range c.offs {
				a, owner := o.Addr(false), fmt.Sprintf("vm-%d", i)
				if err := p.AllocateAddr(a, owner); err != nil {
					t.Fatalf("AllocateAddr(%v, %q): %v", a, owner, err)
				}
				want[owner] = a
			}
			if got, want := [2]int{len(p.owners.hi), len(p.owners.wide)}, [2]int{c.wantHi, c.wantWide}; !c.narrow && got != want {
				t.Errorf("owners kept by Hi and by whole offset: %v, want %v", got, want)
			}
			if err := checkOwnerIndex(p); err != nil {
				t.Fatal(err)
			}
			restored, problems, err := Restore(p.Snapshot())
			if err != nil || len(problems) != 0 {
				t.Fatalf("Restore(Snapshot()) = %v, %v", problems, err)
			}
			for name, q := range map[string]*Pool{"pool": p, "clone": p.Clone(), "restored": restored} {
				if err := checkOwnerIndex(q); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if diff := cmp.Diff(want, ownersFound(q), cmpAddrs); diff != "" {
					t.Errorf("%s: AddrOf (-want +got):\n%s", name, diff)
				}
			}
			released := 0
			for owner, a := range want {
				if got, ok := p.ReleaseOwner(owner); !ok || got != a {
					t.Fatalf("ReleaseOwner(%q) = %v, %v; want %v, true", owner, got, ok, a)
				}
				delete(want, owner)
				if released++; released%10 != 0 && len(want) > 0 {
					continue // every owner's look-up, after every tenth release and the last
				}
				if diff := cmp.Diff(want, ownersFound(p), cmpAddrs); diff != "" {
					t.Fatalf("after ReleaseOwner(%q), AddrOf (-want +got):\n%s", owner, diff)
				}
			}
			if n := p.owners.len(); n != 0 {
				t.Errorf("owner index holds %d owners after every release", n)
			}
		})
	}
}

// ownersFound returns, for every allocation of p, the address AddrOf
// finds for its owner, if Lookup of that address gives the owner back.
func ownersFound(p *Pool) map[string]netip.Addr {
	got := map[string]netip.Addr{}
	for a, owner := range p.All() {
		if o, ok := p.Lookup(a); !ok || o != owner {
			continue
		}
		if b, ok := p.AddrOf(owner); ok {
			got[owner] = b
		}
	}
	return got
}

// checkOwnerIndex checks that every entry of p's owner index is where the
// index looks for it: kept by Hi only if the tree finds it from there.
func checkOwnerIndex(p *Pool) error {
	x := &p.owners
	if n := x.len(); n != p.Len() || n != len(collectAll(p)) {
		return fmt.Errorf("owner index holds %d owners, the tree %d", n, len(collectAll(p)))
	}
	for a, owner := range p.All() {
		o, _ := p.l.offset(a)
		if _, ok := x.more[owner]; ok {
			continue
		}
		h := x.hash(owner)
		if x.narrow != nil {
			if v, ok := x.narrow[h]; !ok || v != o.Lo {
				return fmt.Errorf("%q at %v kept as %#x, %v", owner, a, v, ok)
			}
			continue
		}
		if hi, ok := x.hi[h]; ok {
			if got, found := p.t.hiFind(hi, owner); !found || got != o {
				return fmt.Errorf("%q at %v kept by Hi %#x: the tree finds %v, %v", owner, a, hi, got, found)
			}
			continue
		}
		if o2, ok := x.wide[h]; !ok || o2 != o {
			return fmt.Errorf("%q at %v kept as %v, %v", owner, a, o2, ok)
		}
	}
	return nil
}

func collectAll(p *Pool) []Allocation {
	var out []Allocation
	for a, owner := range p.All() {
		out = append(out, Allocation{a, owner})
	}
	return out
}

// TestOwnerIndexNeverFindsBlockedLone: an excluded address far from others
// is a lone with the owner "" (never an owner); a look-up of "" that lands
// on its span through an owner kept by Hi (every hash collides here) finds
// nothing.
func TestOwnerIndexNeverFindsBlockedLone(t *testing.T) {
	owned, excluded := netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::2")
	p, err := New(Spec{Prefix: netip.MustParsePrefix("::/0"), Exclude: []netipx.IPRange{netipx.IPRangeFrom(excluded, excluded)}})
	if err != nil {
		t.Fatal(err)
	}
	p.owners.mask = 0
	if err := p.AllocateAddr(owned, "vm-1"); err != nil {
		t.Fatal(err)
	}
	if len(p.owners.hi) != 1 {
		t.Fatalf("%d owners kept by Hi, want 1", len(p.owners.hi))
	}
	for _, owner := range []string{"", "vm-2"} {
		if a, ok := p.AddrOf(owner); ok {
			t.Errorf("AddrOf(%q) = %v, true; want false", owner, a)
		}
	}
	if a, ok := p.AddrOf("vm-1"); !ok || a != owned {
		t.Errorf("AddrOf(%q) = %v, %v; want %v, true", "vm-1", a, ok, owned)
	}
}
