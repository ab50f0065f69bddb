package ipam

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/u128"
	"pgregory.net/rapid"
)

// TestSortEntries checks the radix sort against slices.SortFunc.
func TestSortEntries(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bits := rapid.SampledFrom([]int{1, 7, 8, 20, 63, 64, 65, 100, 127, 128}).Draw(t, "bits")
		n := rapid.SampledFrom([]int{0, 1, 511, 512, 2000}).Draw(t, "n")
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
		entries := make([]entry, n)
		for i := range entries {
			o := u128.U128{Hi: r.Uint64(), Lo: r.Uint64()}.Rsh(uint(128 - bits))
			if i > 0 && r.IntN(4) == 0 {
				o = entries[r.IntN(i)].o // duplicates
			}
			entries[i] = entry{o, fmt.Sprint(r.IntN(50))}
		}
		want := slices.Clone(entries)
		slices.SortFunc(want, func(a, b entry) int { return cmp.Or(a.o.Cmp(b.o), cmp.Compare(a.owner, b.owner)) })
		sortEntries(entries, bits)
		if !slices.Equal(want, entries) {
			t.Fatalf("sortEntries differs from slices.SortFunc")
		}
	})
}

// TestRestoreLargeInputAnyOrder: a large snapshot with duplicate addresses
// and owners restores to the same pool and problems in any order.
func TestRestoreLargeInputAnyOrder(t *testing.T) {
	for _, prefix := range []string{"10.0.0.0/20", "2001:db8::/64", "::/0"} {
		t.Run(prefix, func(t *testing.T) {
			spec := Spec{Prefix: mpp(prefix)}
			l, _ := compile(spec)
			r := rand.New(rand.NewPCG(3, 4))
			var allocs []Allocation
			for i := range 3000 {
				o := u128.From64(uint64(r.IntN(2500)))
				if prefix != "10.0.0.0/20" && i%2 == 0 {
					o = u128.U128{Hi: r.Uint64() >> 1, Lo: r.Uint64()}.Rsh(64)
				}
				allocs = append(allocs, Allocation{l.addr(o), fmt.Sprint("owner-", r.IntN(2800))})
			}
			var first Snapshot
			var firstProblems []Problem
			for round := range 4 {
				r.Shuffle(len(allocs), func(i, j int) { allocs[i], allocs[j] = allocs[j], allocs[i] })
				p, problems, err := Restore(Snapshot{Spec: spec, Allocations: allocs})
				if err != nil {
					t.Fatal(err)
				}
				if len(problems) == 0 || p.Len()+len(problems) != len(allocs) {
					t.Fatalf("%d kept + %d problems != %d", p.Len(), len(problems), len(allocs))
				}
				snap := p.Snapshot()
				for _, a := range snap.Allocations {
					if got, _ := p.AddrOf(a.Owner); got != a.Addr {
						t.Fatalf("AddrOf(%q) = %v, want %v", a.Owner, got, a.Addr)
					}
				}
				if round == 0 {
					first, firstProblems = snap, problems
					continue
				}
				if d := diffSnap(first, snap); d != "" {
					t.Fatalf("order changed the pool (-first +now):\n%s", d)
				}
				if d := cmpProblems(firstProblems, problems); d != "" {
					t.Fatalf("order changed the problems (-first +now):\n%s", d)
				}
			}
		})
	}
}
