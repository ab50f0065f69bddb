package ipam

import (
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// RestoreAllocated is Restore(ParseAllocated()) in one pass: the same pool,
// the same problems, and the status map left alone, for any status map,
// however malformed.
func TestRestoreAllocatedIsParseThenRestore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spec := genSpec(t)
		m := newModel(spec)
		status := map[string]string{}
		for range rapid.IntRange(0, 24).Draw(t, "entries") {
			key := genAddr(t, m).String()
			if rapid.IntRange(0, 5).Draw(t, "bad-key") == 0 {
				key = rapid.SampledFrom([]string{"010.0.0.1", " 10.0.0.1", "::ffff:10.0.0.1", "fe80::1%eth0", "x", ""}).Draw(t, "key")
			}
			owner := genOwner(t, m)
			switch rapid.IntRange(0, 5).Draw(t, "marker") {
			case 0:
				owner = MarkerExcluded
			case 1:
				owner = MarkerReserved
			}
			status[key] = owner
		}
		given := maps.Clone(status)

		parsed, problems := ParseAllocated(spec, status)
		want, more, err := Restore(parsed)
		if err != nil {
			t.Fatalf("Restore(ParseAllocated()) error: %v", err)
		}
		wantProblems := append(problems, more...)
		sortProblems(wantProblems)

		got, gotProblems, err := RestoreAllocated(spec, status)
		if err != nil {
			t.Fatalf("RestoreAllocated error: %v", err)
		}
		if diff := cmp.Diff(want.Snapshot(), got.Snapshot(), cmpAddrs); diff != "" {
			t.Fatalf("pool (-Restore(ParseAllocated) +RestoreAllocated):\n%s", diff)
		}
		if diff := cmpProblems(wantProblems, gotProblems); diff != "" {
			t.Fatalf("problems (-Restore(ParseAllocated) +RestoreAllocated):\n%s", diff)
		}
		if !maps.Equal(given, status) {
			t.Fatalf("RestoreAllocated modified the status map")
		}
		if a, b := probeNext(want), probeNext(got); a != b {
			t.Fatalf("next Allocate: %v after Restore(ParseAllocated), %v after RestoreAllocated", a, b)
		}
	})
}

// probeNext is the address a pool hands out next (the Sequential cursor
// included), on a clone.
func probeNext(p *Pool) string {
	owner := "probe"
	if p.Spec().Owners == MACOwners {
		owner = "fe:ff:ff:ff:ff:ff"
	}
	a, err := p.Clone().Allocate(owner)
	if err != nil {
		return err.Error()
	}
	return a.String()
}
