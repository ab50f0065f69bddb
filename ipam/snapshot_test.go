package ipam

import (
	"errors"
	"fmt"
	"go4.org/netipx"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRestoreProblems(t *testing.T) {
	allocs := []Allocation{
		{mpa("10.0.0.6"), "c"},
		{mpa("10.0.0.2"), "a"},
		{mpa("10.0.0.5"), "a"},  // a holds .2: lowest kept
		{mpa("10.0.0.5"), "b"},  // .5 is then free for b
		{mpa("10.0.0.5"), "bb"}, // duplicate address
		{mpa("10.0.0.3"), "x"},  // excluded
		{mpa("10.0.0.1"), "y"},  // reserved
		{mpa("10.0.0.9"), "z"},  // outside the prefix
		{mpa("10.0.0.7"), "w"},  // broadcast
		{netip.Addr{}, "v"},     // zero
		{mpa("10.0.0.6"), ""},   // empty owner
		{mpa("10.0.0.6"), "c"},  // exact duplicate
	}
	wantAllocs := []Allocation{{mpa("10.0.0.2"), "a"}, {mpa("10.0.0.5"), "b"}, {mpa("10.0.0.6"), "c"}}
	wantProblems := []string{
		`"invalid IP" "v" address out of range`,
		`"10.0.0.1" "y" address reserved`,
		`"10.0.0.3" "x" address excluded`,
		`"10.0.0.5" "a" owner already holds an address`,
		`"10.0.0.5" "bb" address in use`,
		`"10.0.0.6" "" invalid owner`,
		`"10.0.0.6" "c" address in use`,
		`"10.0.0.7" "w" address out of range`,
		`"10.0.0.9" "z" address out of range`,
	}
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 20 {
		shuffled := slices.Clone(allocs)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		p, problems, err := Restore(Snapshot{Spec: smallSpec(), Allocations: shuffled})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantAllocs, p.Snapshot().Allocations, cmpAddrs); diff != "" {
			t.Fatalf("shuffle %d: allocations (-want +got):\n%s", i, diff)
		}
		var got []string
		for _, pr := range problems {
			got = append(got, fmt.Sprintf("%q %q %v", pr.Entry, pr.Owner, sentinel(pr.Err)))
		}
		if diff := cmp.Diff(wantProblems, got); diff != "" {
			t.Fatalf("shuffle %d: problems (-want +got):\n%s", i, diff)
		}
	}
}

func TestParseAllocated(t *testing.T) {
	spec := Spec{
		Prefix:   mpp("10.0.0.0/24"),
		Start:    mpa("10.0.0.10"),
		End:      mpa("10.0.0.100"),
		Exclude:  []netipx.IPRange{rng("10.0.0.20", "10.0.0.29"), rng("10.0.0.2", "10.0.0.3")},
		Reserved: []netip.Addr{mpa("10.0.0.1"), mpa("10.0.0.50")},
	}
	m := map[string]string{
		"10.0.0.11":    "52:54:00:00:00:01",
		"10.0.0.12":    "52:54:00:00:00:02",
		"10.0.0.13":    "52:54:00:00:00:01", // owner twice: keeps .11
		"10.0.0.1":     MarkerReserved,      // reserved outside [Start, End]: fine
		"10.0.0.50":    MarkerReserved,
		"10.0.0.21":    MarkerExcluded,
		"10.0.0.2":     MarkerExcluded, // excluded outside [Start, End]: fine
		"10.0.0.14":    MarkerExcluded, // not excluded
		"10.0.0.15":    MarkerReserved, // not reserved
		"10.0.0.22":    "52:54:00:00:00:03",
		"10.0.0.51":    "",
		"010.0.0.1":    "52:54:00:00:00:04",
		" 10.0.0.16":   "52:54:00:00:00:05",
		"10.0.0.300":   "52:54:00:00:00:06",
		"::ffff:a00:1": "52:54:00:00:00:07", // not canonical (::ffff:10.0.0.1)
		"fe80::1%eth0": "52:54:00:00:00:08",
		"10.0.0.101":   "52:54:00:00:00:09",
		"10.0.0.50 ":   "52:54:00:00:00:10",
	}
	orig := make(map[string]string, len(m))
	for k, v := range m {
		orig[k] = v
	}
	snap, problems := ParseAllocated(spec, m)
	if diff := cmp.Diff(orig, m); diff != "" {
		t.Fatalf("ParseAllocated modified its input (-before +after):\n%s", diff)
	}
	want := []Allocation{{mpa("10.0.0.11"), "52:54:00:00:00:01"}, {mpa("10.0.0.12"), "52:54:00:00:00:02"}}
	if diff := cmp.Diff(want, snap.Allocations, cmpAddrs); diff != "" {
		t.Errorf("allocations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(spec, snap.Spec, cmpAddrs); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	var got []string
	for _, pr := range problems {
		got = append(got, fmt.Sprintf("%q %v", pr.Entry, sentinel(pr.Err)))
	}
	wantProblems := []string{
		`" 10.0.0.16" invalid address`,
		`"010.0.0.1" invalid address`,
		`"10.0.0.300" invalid address`,
		`"10.0.0.50 " invalid address`,
		`"10.0.0.13" owner already holds an address`,
		`"10.0.0.14" marker not backed by the spec`,
		`"10.0.0.15" marker not backed by the spec`,
		`"10.0.0.22" address excluded`,
		`"10.0.0.51" invalid owner`,
		`"10.0.0.101" address out of range`,
		`"::ffff:a00:1" invalid address`,
		`"fe80::1%eth0" invalid address`,
	}
	if diff := cmp.Diff(wantProblems, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	for _, pr := range problems {
		if pr.Entry == "010.0.0.1" && pr.Addr.IsValid() {
			t.Errorf("unparsable entry has Addr %v", pr.Addr)
		}
		if pr.Entry == "::ffff:a00:1" && pr.Addr != mpa("::ffff:10.0.0.1") {
			t.Errorf("non-canonical entry has Addr %v, want the parsed address", pr.Addr)
		}
	}
	p, restoreProblems, err := Restore(snap)
	if err != nil || len(restoreProblems) != 0 || p.Len() != 2 {
		t.Fatalf("Restore(ParseAllocated()) = %v, %v, %v", p, restoreProblems, err)
	}
}

func TestParseAllocatedInvalidSpec(t *testing.T) {
	_, problems := ParseAllocated(Spec{}, map[string]string{"10.0.0.1": "a", "x": "b"})
	if len(problems) != 2 {
		t.Fatalf("problems = %v, want 2", problems)
	}
	if !errors.Is(problems[0].Err, ErrInvalidAddr) || !errors.Is(problems[1].Err, ErrInvalidSpec) {
		t.Fatalf("problems = %v, want ErrInvalidAddr then ErrInvalidSpec", problems)
	}
}

func TestProblemError(t *testing.T) {
	pr := Problem{Entry: "10.0.0.5", Addr: mpa("10.0.0.5"), Owner: "b", Err: fmt.Errorf("held by %q: %w", "a", ErrInUse)}
	if got, want := pr.Error(), `ipam: entry "10.0.0.5" (owner "b"): held by "a": address in use`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(pr, ErrInUse) {
		t.Error("errors.Is(problem, ErrInUse) = false")
	}
}

func TestSnapshotSharesNothing(t *testing.T) {
	p := mustNew(t, smallSpec())
	p.Allocate("a")
	s := p.Snapshot()
	s.Allocations[0].Owner = "changed"
	s.Spec.Exclude[0] = rng("10.0.0.5", "10.0.0.6")
	if o, _ := p.Lookup(mpa("10.0.0.2")); o != "a" {
		t.Fatalf("owner changed to %q", o)
	}
	if err := p.Check(mpa("10.0.0.3")); !errors.Is(err, ErrExcluded) {
		t.Fatalf("Check = %v", err)
	}
	if got := p.Snapshot().Spec.Exclude[0].String(); !strings.HasPrefix(got, "10.0.0.3") {
		t.Fatalf("spec changed: %s", got)
	}
}
