package ipam

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vmnetkit/vmnetkit/internal/u128"
	"pgregory.net/rapid"
)

// TestPoolMatchesModel drives a Pool and the model with the same random
// actions and checks after every step that they agree. Half the pools
// narrow their owner index's hash to two bits, so that nearly every owner
// collides and the index keeps most of them by string.
func TestPoolMatchesModel(t *testing.T) {
	collided := 0 // steps with a colliding owner kept by string
	rapid.Check(t, func(t *rapid.T) {
		spec := genSpec(t)
		p, err := New(spec)
		if err != nil {
			t.Fatalf("New(%+v): %v", spec, err)
		}
		narrow := rapid.Bool().Draw(t, "narrow-owner-hash")
		if narrow {
			narrowOwnerHash(p)
		}
		m := newModel(spec)
		fresh := 0 // names the owners of "Allocate many"
		t.Repeat(map[string]func(*rapid.T){
			"Allocate": func(t *rapid.T) {
				owner := genOwner(t, m)
				want, wantErr := m.allocate(owner)
				got, err := p.Allocate(owner)
				if got != want || sentinel(err) != wantErr {
					t.Fatalf("Allocate(%q) = %v, %v; model %v, %v", owner, got, err, want, wantErr)
				}
			},
			"Allocate many": func(t *rapid.T) {
				// Enough owners to cross the tree's 64-address leaves.
				for range rapid.IntRange(1, 66).Draw(t, "n") {
					fresh++
					owner := freshOwner(m, fresh)
					want, wantErr := m.allocate(owner)
					got, err := p.Allocate(owner)
					if got != want || sentinel(err) != wantErr {
						t.Fatalf("Allocate(%q) = %v, %v; model %v, %v", owner, got, err, want, wantErr)
					}
				}
			},
			"AllocateAddr": func(t *rapid.T) {
				a, owner := genAddr(t, m), genOwner(t, m)
				wantErr := m.allocateAddr(a, owner)
				if err := p.AllocateAddr(a, owner); sentinel(err) != wantErr {
					t.Fatalf("AllocateAddr(%v, %q) = %v; model %v", a, owner, err, wantErr)
				}
			},
			"AllocateAddr many": func(t *rapid.T) {
				// Runs of addresses at one stride: lones past a node's
				// limit, lones that fill a leaf, dense Allocate among lones.
				base := u128.FromAddr(genAddr(t, m)).Sub(u128.FromAddr(m.spec.Prefix.Addr()))
				stride := rapid.SampledFrom([]uint64{1, 2, 3, 63, 64, 65, 4095, 4097, 1<<18 + 1, 1 << 36}).Draw(t, "stride")
				for k := range rapid.IntRange(1, 300).Draw(t, "n") {
					fresh++
					owner := freshOwner(m, fresh)
					a := notMapped(addrAt(m.spec.Prefix, base.Add(u128.From64(stride*uint64(k)))))
					wantErr := m.allocateAddr(a, owner)
					if err := p.AllocateAddr(a, owner); sentinel(err) != wantErr {
						t.Fatalf("AllocateAddr(%v, %q) = %v; model %v", a, owner, err, wantErr)
					}
				}
			},
			"Release many": func(t *rapid.T) {
				held := m.allocations()
				for _, i := range rapid.SliceOfNDistinct(rapid.IntRange(0, max(0, len(held)-1)), 0, 200, rapid.ID[int]).Draw(t, "released") {
					if i >= len(held) {
						continue
					}
					a := held[i].Addr
					want, wantErr := m.release(a)
					got, err := p.Release(a)
					if got != want || (err == nil) != (wantErr == nil) {
						t.Fatalf("Release(%v) = %q, %v; model %q, %v", a, got, err, want, wantErr)
					}
				}
			},
			"Release": func(t *rapid.T) {
				a := genAddr(t, m)
				want, wantErr := m.release(a)
				got, err := p.Release(a)
				if got != want || !errors.Is(err, wantErr) || (err == nil) != (wantErr == nil) {
					t.Fatalf("Release(%v) = %q, %v; model %q, %v", a, got, err, want, wantErr)
				}
				if why := m.why(a); err != nil && why != nil && !errors.Is(err, why) {
					t.Fatalf("Release(%v) = %v, want it to wrap %v", a, err, why)
				}
			},
			"ReleaseOwner": func(t *rapid.T) {
				owner := genOwner(t, m)
				c, _ := m.canonical(owner)
				want, wantOK := m.owners[c]
				if wantOK {
					m.release(want)
				}
				if got, ok := p.ReleaseOwner(owner); got != want || ok != wantOK {
					t.Fatalf("ReleaseOwner(%q) = %v, %v; model %v, %v", owner, got, ok, want, wantOK)
				}
			},
			"Restore(Snapshot())": func(t *rapid.T) {
				snap := p.Snapshot()
				rand.New(rand.NewPCG(1, 2)).Shuffle(len(snap.Allocations), func(i, j int) {
					snap.Allocations[i], snap.Allocations[j] = snap.Allocations[j], snap.Allocations[i]
				})
				q, problems, err := Restore(snap)
				if err != nil || len(problems) != 0 {
					t.Fatalf("Restore(Snapshot()) = %v, %v", problems, err)
				}
				p = q
				if narrow {
					narrowOwnerHash(p)
				}
				m.restored()
			},
			"ParseAllocated(FormatAllocated(Snapshot()))": func(t *rapid.T) {
				snap := p.Snapshot()
				got, problems := ParseAllocated(snap.Spec, FormatAllocated(snap))
				if len(problems) != 0 {
					t.Fatalf("ParseAllocated(FormatAllocated()) problems: %v", problems)
				}
				if diff := cmp.Diff(snap, got, cmpAddrs); diff != "" {
					t.Fatalf("ParseAllocated(FormatAllocated()) (-want +got):\n%s", diff)
				}
				q, problems, err := Restore(got)
				if err != nil || len(problems) != 0 {
					t.Fatalf("Restore(ParseAllocated()) = %v, %v", problems, err)
				}
				p = q
				if narrow {
					narrowOwnerHash(p)
				}
				m.restored()
			},
			"JSON round trip of Snapshot()": func(t *rapid.T) {
				snap := p.Snapshot()
				b, err := json.Marshal(snap)
				if err != nil {
					t.Fatalf("json.Marshal(Snapshot()): %v", err)
				}
				var got Snapshot
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatalf("json.Unmarshal(%s): %v", b, err)
				}
				if diff := cmp.Diff(snap, got, cmpAddrs, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("Snapshot JSON round trip (-want +got):\n%s", diff)
				}
			},
			"Clone": func(t *rapid.T) {
				before := p.Snapshot()
				c := p.Clone()
				if diff := cmp.Diff(before, c.Snapshot(), cmpAddrs); diff != "" {
					t.Fatalf("Clone differs (-want +got):\n%s", diff)
				}
				for a := range c.All() {
					c.Release(a)
					break
				}
				c.Allocate("clone-only")
				if diff := cmp.Diff(before, p.Snapshot(), cmpAddrs); diff != "" {
					t.Fatalf("changing a clone changed the pool (-want +got):\n%s", diff)
				}
			},
			"": func(t *rapid.T) {
				if len(p.owners.more) > 0 {
					collided++
				}
				checkInvariants(t, p, m)
				if err := checkTree(&p.t); err != nil {
					t.Fatal(err)
				}
				if err := checkOwnerIndex(p); err != nil {
					t.Fatal(err)
				}
			},
		})
	})
	if collided == 0 {
		t.Fatal("no owner ever collided: the owner index's collision path went untested")
	}
}

// narrowOwnerHash rebuilds p's owner index with its hash cut to two bits.
func narrowOwnerHash(p *Pool) {
	x := newOwnerIndex(p.l.max, p.Len(), 0)
	x.mask = 3
	for a, owner := range p.All() {
		o, _ := p.l.offset(a)
		x.set(&p.t, owner, o)
	}
	p.owners = x
}

func checkInvariants(t *rapid.T, p *Pool, m *model) {
	want := m.allocations()
	var got []Allocation
	seen := map[string]bool{}
	for a, o := range p.All() {
		got = append(got, Allocation{a, o})
		if seen[o] {
			t.Fatalf("owner %q holds two addresses", o)
		}
		seen[o] = true
		if err := p.Check(a); err != nil {
			t.Fatalf("allocated %v: %v", a, err)
		}
		if lo, ok := p.Lookup(a); !ok || lo != o {
			t.Fatalf("Lookup(%v) = %q, %v; want %q", a, lo, ok, o)
		}
		if ao, ok := p.AddrOf(o); !ok || ao != a {
			t.Fatalf("AddrOf(%q) = %v, %v; want %v", o, ao, ok, a)
		}
	}
	if diff := cmp.Diff(want, got, cmpAddrs); diff != "" {
		t.Fatalf("allocations (-model +pool):\n%s", diff)
	}
	if !slices.IsSortedFunc(got, cmpAlloc) {
		t.Fatalf("All() not in address order: %v", got)
	}
	if p.Len() != len(want) {
		t.Fatalf("Len() = %d, want %d", p.Len(), len(want))
	}
	if g, w := statsStrings(p.Stats()), m.stats(); g != w {
		t.Fatalf("Stats = %v, model %v (size allocated excluded reserved free)", g, w)
	}
	for _, a := range edges(m) { // the allocated ones were checked above
		if got, want := sentinel(p.Check(a)), m.why(a); got != want {
			t.Fatalf("Check(%v) = %v, model %v", a, got, want)
		}
		_, held := m.addrs[a]
		if o, ok := p.Lookup(a); ok != held || o != m.addrs[a] {
			t.Fatalf("Lookup(%v) = %q, %v; model %q", a, o, ok, m.addrs[a])
		}
	}
	// The next address handed out, on a clone and on a restored copy.
	wantNext, wantOK := m.next()
	probe := "probe"
	if m.spec.Owners == MACOwners {
		probe = "fe:ff:ff:ff:ff:ff"
	}
	next := func(q *Pool) {
		got, err := q.Allocate(probe)
		if (err == nil) != wantOK || got != wantNext {
			t.Fatalf("next Allocate = %v, %v; model %v, %v", got, err, wantNext, wantOK)
		}
	}
	next(p.Clone())
	r, problems, err := Restore(p.Snapshot())
	if err != nil || len(problems) != 0 {
		t.Fatalf("Restore(Snapshot()) = %v, %v", problems, err)
	}
	if diff := cmp.Diff(p.Snapshot(), r.Snapshot(), cmpAddrs); diff != "" {
		t.Fatalf("Restore(Snapshot()) differs (-pool +restored):\n%s", diff)
	}
	if p.Stats() != r.Stats() {
		t.Fatalf("restored Stats = %v, want %v", r.Stats(), p.Stats())
	}
	if m.spec.Strategy == Lowest {
		next(r)
	}
	// Every spelling of an owner finds its address.
	for spelled, c := range m.aliases {
		if m.spec.Owners != MACOwners {
			break
		}
		want, wantOK := m.owners[c]
		if got, ok := p.AddrOf(spelled); got != want || ok != wantOK {
			t.Fatalf("AddrOf(%q) = %v, %v; model %v, %v", spelled, got, ok, want, wantOK)
		}
	}
}
