package leasestore_test

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// macSpec4 is spec4 as a pool of MAC owners, so that ipam.Restore reads
// every spelling of a MAC as one owner, as Build does.
var macSpec4 = func() ipam.Spec {
	s := spec4
	s.Owners = ipam.MACOwners
	return s
}()

// TestBuildResolvesConflictsAsRestoreDoes: an agent and its pool disagreed
// on a conflicting snapshot ({10.0.0.3 -> m1, 10.0.0.5 -> m1, 10.0.0.5 ->
// m2}: ipam.Restore gave 10.0.0.5 to m2, Build to nobody, and said m1
// kept it). Build must serve what Restore keeps, whatever the order of
// the snapshot and whether its tables pack, and each problem must name
// who really keeps what.
func TestBuildResolvesConflictsAsRestoreDoes(t *testing.T) {
	const (
		m0 = "52:54:00:00:00:00"
		m1 = "52:54:00:00:00:01"
		m2 = "52:54:00:00:00:02"
		m3 = "52:54:00:00:00:03"
	)
	holds := func(addr, owner, kept string) string {
		return fmt.Sprintf("leasestore: lease %s for %q: MAC also holds %s, which it keeps: duplicate MAC", addr, owner, kept)
	}
	heldBy := func(addr, owner, holder string) string {
		return fmt.Sprintf("leasestore: lease %s for %q: held by %s: duplicate address", addr, owner, holder)
	}
	for _, tc := range []struct {
		name         string
		entries      []string // "addr=owner"
		want         []string // the table
		wantProblems []string
	}{
		{
			name:         "an owner's second address goes to the next owner of it",
			entries:      []string{"10.0.0.3=" + m1, "10.0.0.5=" + m1, "10.0.0.5=" + m2},
			want:         []string{m1 + " 10.0.0.3/24", m2 + " 10.0.0.5/24"},
			wantProblems: []string{holds("10.0.0.5", m1, "10.0.0.3")},
		},
		{
			name:         "three owners of one address",
			entries:      []string{"10.0.0.5=" + m3, "10.0.0.5=" + m1, "10.0.0.5=" + m2},
			want:         []string{m1 + " 10.0.0.5/24"},
			wantProblems: []string{heldBy("10.0.0.5", m2, m1), heldBy("10.0.0.5", m3, m1)},
		},
		{
			name:         "an owner of three addresses",
			entries:      []string{"10.0.0.7=" + m1, "10.0.0.5=" + m1, "10.0.0.6=" + m1},
			want:         []string{m1 + " 10.0.0.5/24"},
			wantProblems: []string{holds("10.0.0.6", m1, "10.0.0.5"), holds("10.0.0.7", m1, "10.0.0.5")},
		},
		{
			name: "a chain: each address's first owner keeps a lower one",
			entries: []string{"10.0.0.3=" + m1, "10.0.0.5=" + m1, "10.0.0.5=" + m2,
				"10.0.0.7=" + m2, "10.0.0.7=" + m3, "10.0.0.9=" + m3, "10.0.0.9=" + m0},
			want: []string{m1 + " 10.0.0.3/24", m2 + " 10.0.0.5/24", m3 + " 10.0.0.7/24", m0 + " 10.0.0.9/24"},
			wantProblems: []string{holds("10.0.0.5", m1, "10.0.0.3"), holds("10.0.0.7", m2, "10.0.0.5"),
				heldBy("10.0.0.9", m3, m0)},
		},
		{
			name:         "every owner of an address keeps a lower one",
			entries:      []string{"10.0.0.3=" + m1, "10.0.0.4=" + m2, "10.0.0.5=" + m2, "10.0.0.5=" + m1},
			want:         []string{m1 + " 10.0.0.3/24", m2 + " 10.0.0.4/24"},
			wantProblems: []string{holds("10.0.0.5", m1, "10.0.0.3"), holds("10.0.0.5", m2, "10.0.0.4")},
		},
		{
			name:         "an address taken and a MAC kept elsewhere: the holder is named",
			entries:      []string{"10.0.0.3=" + m1, "10.0.0.5=" + m1, "10.0.0.5=" + m0},
			want:         []string{m1 + " 10.0.0.3/24", m0 + " 10.0.0.5/24"},
			wantProblems: []string{heldBy("10.0.0.5", m1, m0)},
		},
		{
			name:         "spellings of one MAC are one owner",
			entries:      []string{"10.0.0.3=52-54-00-00-00-01", "10.0.0.5=5254.0000.0001", "10.0.0.5=" + m2},
			want:         []string{m1 + " 10.0.0.3/24", m2 + " 10.0.0.5/24"},
			wantProblems: []string{holds("10.0.0.5", "5254.0000.0001", "10.0.0.3")},
		},
		{
			name:    "an address given twice to the MAC that keeps it, after an owner that keeps a lower one",
			entries: []string{"10.0.0.5=" + m2, "10.0.0.5=52-54-00-00-00-02", "10.0.0.5=" + m1, "10.0.0.3=" + m1},
			want:    []string{m1 + " 10.0.0.3/24", m2 + " 10.0.0.5/24"},
			wantProblems: []string{holds("10.0.0.5", m1, "10.0.0.3"),
				`leasestore: lease 10.0.0.5 for "52:54:00:00:00:02": listed again for the same MAC (as "52-54-00-00-00-02"): duplicate address`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restored, _, err := ipam.Restore(snap(macSpec4, tc.entries...))
			if err != nil {
				t.Fatal(err)
			}
			var kept []string
			for addr, owner := range restored.All() {
				kept = append(kept, fmt.Sprintf("%s %s/24", owner, addr))
			}
			if diff := cmp.Diff(tc.want, kept); diff != "" {
				t.Fatalf("ipam.Restore keeps (-want +got):\n%s", diff)
			}
			for _, bits := range []uint{64, 0} { // packed when it can, always wide
				for _, order := range orders(tc.entries) {
					restore := leasestore.SetPackBits(bits)
					s, problems := leasestore.Build(snap(spec4, order...), opts4)
					restore()
					if diff := cmp.Diff(tc.want, table(s)); diff != "" {
						t.Fatalf("key bits %d, entries %q: table (-want +got):\n%s", bits, order, diff)
					}
					var got []string
					for _, p := range problems {
						got = append(got, p.Error())
					}
					if diff := cmp.Diff(tc.wantProblems, got); diff != "" {
						t.Fatalf("key bits %d, entries %q: problems (-want +got):\n%s", bits, order, diff)
					}
				}
			}
		})
	}
}

// orders returns every rotation of entries, forwards and backwards.
func orders(entries []string) [][]string {
	var out [][]string
	for i := range entries {
		rot := append(slices.Clone(entries[i:]), entries[:i]...)
		rev := slices.Clone(rot)
		slices.Reverse(rev)
		out = append(out, rot, rev)
	}
	return out
}

// TestBuildServesWhatRestoreKeeps: for any small snapshot, conflicts and
// bad entries included, Build serves exactly the allocations that
// ipam.Restore keeps in a pool of MAC owners, both leave out the same
// entries for the same kind of reason, and each of Build's problems names
// the lease that really holds the address or the MAC.
func TestBuildServesWhatRestoreKeeps(t *testing.T) {
	v4 := ipam.Spec{Prefix: netip.MustParsePrefix("10.0.0.0/28"), Reserved: netiptest.Addrs("10.0.0.1"), Owners: ipam.MACOwners}
	v6 := ipam.Spec{Prefix: netip.MustParsePrefix("fd00::/120"), Reserved: netiptest.Addrs("fd00::1"), Owners: ipam.MACOwners}
	macs := []string{"52:54:00:00:00:01", "52:54:00:00:00:02", "52:54:00:00:00:03", "52:54:00:00:00:04", "02:00:00:00:00:09"}
	rapid.Check(t, func(t *rapid.T) {
		spec := rapid.SampledFrom([]ipam.Spec{v4, v6}).Draw(t, "spec")
		// 64: packed when the snapshot is free of conflicts; 28: the
		// other vendor's MAC widens the packing; 0: always wide.
		defer leasestore.SetPackBits(rapid.SampledFrom([]uint{64, 28, 0}).Draw(t, "pack bits"))()
		base := spec.Prefix.Addr()
		allocs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) ipam.Allocation {
			addr := base
			for range rapid.IntRange(1, 6).Draw(t, "addr") { // 1 is reserved
				addr = addr.Next()
			}
			owner := "vm-1" // not a MAC
			if rapid.IntRange(0, 9).Draw(t, "mac or not") > 0 {
				owner = spell(leasestore.MustParseMAC(rapid.SampledFrom(macs).Draw(t, "mac")), rapid.IntRange(0, 3).Draw(t, "spelling"))
			}
			return ipam.Allocation{Addr: addr, Owner: owner}
		}), 1, 10).Draw(t, "allocations")
		snapshot := ipam.Snapshot{Spec: spec, Allocations: allocs}

		s, problems := leasestore.Build(snapshot, leasestore.Options{})
		pool, ipamProblems, err := ipam.Restore(snapshot)
		if err != nil {
			t.Fatal(err)
		}

		var served, kept []string
		for l := range s.All() {
			served = append(served, l.Addr.String()+" "+l.MAC.String())
		}
		for addr, owner := range pool.All() {
			kept = append(kept, addr.String()+" "+owner)
		}
		if diff := cmp.Diff(kept, served, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Build serves what ipam.Restore does not keep (-restore +build):\n%s", diff)
		}

		// The entries left out, as "addr owner" with owners in canonical
		// form: Restore may report another spelling of one MAC listed twice.
		canonical := func(owner string) string {
			if mac, err := leasestore.ParseMAC(owner); err == nil {
				return mac.String()
			}
			return owner
		}
		var leftOut []string
		for _, a := range allocs {
			leftOut = append(leftOut, a.Addr.String()+" "+canonical(a.Owner))
		}
		for _, l := range served {
			i := slices.Index(leftOut, l)
			leftOut = slices.Delete(leftOut, i, i+1)
		}
		slices.Sort(leftOut)
		var buildLeftOut, buildWhy, restoreLeftOut, restoreWhy []string
		for _, p := range problems {
			key := p.Addr.String() + " " + canonical(p.Owner)
			why := "other"
			switch {
			case errors.Is(p, leasestore.ErrDuplicateAddr):
				why = "address held"
			case errors.Is(p, leasestore.ErrDuplicateMAC):
				why = "MAC keeps another"
			}
			buildLeftOut, buildWhy = append(buildLeftOut, key), append(buildWhy, key+": "+why)
			checkNamesHolder(t, s, p, why)
		}
		for _, p := range ipamProblems {
			key := p.Addr.String() + " " + canonical(p.Owner)
			why := "other"
			switch {
			case errors.Is(p, ipam.ErrInUse):
				why = "address held"
			case errors.Is(p, ipam.ErrOwnerHasAddr):
				why = "MAC keeps another"
			}
			restoreLeftOut, restoreWhy = append(restoreLeftOut, key), append(restoreWhy, key+": "+why)
		}
		slices.Sort(buildLeftOut)
		slices.Sort(restoreLeftOut)
		if diff := cmp.Diff(leftOut, buildLeftOut, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Build's problems are not the entries it left out (-left out +problems):\n%s", diff)
		}
		if diff := cmp.Diff(leftOut, restoreLeftOut, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("ipam.Restore's problems are not the entries Build left out (-left out +problems):\n%s", diff)
		}
		slices.Sort(buildWhy)
		slices.Sort(restoreWhy)
		if diff := cmp.Diff(restoreWhy, buildWhy, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Build and ipam.Restore leave entries out for other reasons (-restore +build):\n%s", diff)
		}
	})
}

// checkNamesHolder checks that a duplicate's problem names the lease of s
// that holds its address, or the address its MAC keeps.
func checkNamesHolder(t *rapid.T, s *leasestore.Store, p leasestore.Problem, why string) {
	t.Helper()
	switch why {
	case "address held":
		l, ok := s.LookupAddr(p.Addr)
		if !ok {
			t.Fatalf("%v: nobody is served %s", p, p.Addr)
		}
		want := "held by " + l.MAC.String()
		if mac, err := leasestore.ParseMAC(p.Owner); err == nil && mac == l.MAC {
			want = "listed again for the same MAC"
		}
		if !strings.Contains(p.Error(), want) {
			t.Fatalf("%v: want it to say %q", p, want)
		}
	case "MAC keeps another":
		l, ok := s.Lookup(leasestore.MustParseMAC(p.Owner))
		if !ok || !l.Addr.Less(p.Addr) {
			t.Fatalf("%v: its MAC is served %v (%v), not a lower address", p, l, ok)
		}
		if want := "MAC also holds " + l.Addr.String() + ", which it keeps"; !strings.Contains(p.Error(), want) {
			t.Fatalf("%v: want it to say %q", p, want)
		}
	}
}
