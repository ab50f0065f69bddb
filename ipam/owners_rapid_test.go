package ipam

import (
	"testing"

	"pgregory.net/rapid"
)

// The owner index keys owners by a hash and keeps a colliding owner by
// string. With the hash narrowed to two bits nearly every owner collides:
// the pool must still match the model through allocations, releases of
// either kind and clones.
func TestOwnerIndexCollisionsMatchModel(t *testing.T) {
	collided := 0 // steps with a colliding owner stored by string
	rapid.Check(t, func(t *rapid.T) {
		spec := genSpec(t)
		p, err := New(spec)
		if err != nil {
			t.Fatalf("New(%+v): %v", spec, err)
		}
		p.owners.mask = 3 // before any owner is stored
		m := newModel(spec)
		fresh := 0
		t.Repeat(map[string]func(*rapid.T){
			"Allocate": func(t *rapid.T) {
				owner := genOwner(t, m)
				if rapid.Bool().Draw(t, "fresh") {
					fresh++
					owner = freshOwner(m, fresh)
				}
				want, wantErr := m.allocate(owner)
				if got, err := p.Allocate(owner); got != want || sentinel(err) != wantErr {
					t.Fatalf("Allocate(%q) = %v, %v; model %v, %v", owner, got, err, want, wantErr)
				}
			},
			"AllocateAddr": func(t *rapid.T) {
				a, owner := genAddr(t, m), genOwner(t, m)
				if wantErr := m.allocateAddr(a, owner); sentinel(p.AllocateAddr(a, owner)) != wantErr {
					t.Fatalf("AllocateAddr(%v, %q); model %v", a, owner, wantErr)
				}
			},
			"Release": func(t *rapid.T) {
				a := genAddr(t, m)
				want, _ := m.release(a)
				if got, _ := p.Release(a); got != want {
					t.Fatalf("Release(%v) = %q; model %q", a, got, want)
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
			"Clone": func(t *rapid.T) { p = p.Clone() },
			"": func(t *rapid.T) {
				if len(p.owners.more) > 0 {
					collided++
				}
				if p.Len() != len(m.owners) {
					t.Fatalf("Len() = %d, model %d", p.Len(), len(m.owners))
				}
				for owner, want := range m.owners {
					if got, ok := p.AddrOf(owner); !ok || got != want {
						t.Fatalf("AddrOf(%q) = %v, %v; model %v", owner, got, ok, want)
					}
				}
				for spelled, c := range m.aliases {
					want, wantOK := m.owners[c]
					if got, ok := p.AddrOf(spelled); m.spec.Owners == MACOwners && (got != want || ok != wantOK) {
						t.Fatalf("AddrOf(%q) = %v, %v; model %v, %v", spelled, got, ok, want, wantOK)
					}
				}
			},
		})
	})
	if collided == 0 {
		t.Fatal("no owner ever collided: the collision path went untested")
	}
}
