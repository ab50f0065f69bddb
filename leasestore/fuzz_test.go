package leasestore_test

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"go4.org/netipx"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

var fuzzSpecs = []ipam.Spec{
	{
		Prefix:   netip.MustParsePrefix("10.0.0.0/28"),
		Exclude:  []netipx.IPRange{netipx.MustParseIPRange("10.0.0.8-10.0.0.9")},
		Reserved: netiptest.Addrs("10.0.0.1"),
	},
	{Prefix: netip.MustParsePrefix("10.0.0.4/31")},
	{Prefix: netip.MustParsePrefix("fd00::/120"), Reserved: netiptest.Addrs("fd00::1")},
	{Prefix: netip.MustParsePrefix("10.0.0.5/24")}, // invalid: not canonical
}

// FuzzBuildFromStatusMap builds a table from a fuzzed status map, read
// with ipam.ParseAllocated as an agent would, and checks that Build never
// panics and keeps its invariants.
func FuzzBuildFromStatusMap(f *testing.F) {
	f.Add(uint8(0), "10.0.0.2=52:54:00:00:00:01\n10.0.0.3=52-54-00-00-00-02\n10.0.0.1=RESERVED\n10.0.0.8=EXCLUDED")
	f.Add(uint8(0), "10.0.0.2=52:54:00:00:00:01\n10.0.0.3=52:54:00:00:00:01\n10.0.0.4=5254.0000.0001")
	f.Add(uint8(0), "10.0.0.2=vm-1\n10.0.0.99=52:54:00:00:00:01\n010.0.0.3=52:54:00:00:00:02\n=")
	f.Add(uint8(1), "10.0.0.4=52:54:00:00:00:01\n10.0.0.5=52:54:00:00:00:02")
	f.Add(uint8(2), "fd00::2=52:54:00:00:00:01\nfd00::1=52:54:00:00:00:02\nfd00::ff=02:00:5e:10:00:00:00:01")
	f.Add(uint8(3), "10.0.0.6=52:54:00:00:00:01")
	f.Fuzz(func(t *testing.T, which uint8, status string) {
		spec := fuzzSpecs[int(which)%len(fuzzSpecs)]
		m := map[string]string{}
		for _, line := range strings.Split(status, "\n") {
			k, v, _ := strings.Cut(line, "=")
			m[k] = v
		}
		snap, _ := ipam.ParseAllocated(spec, m)
		s, problems := leasestore.Build(snap, opts4)

		reversed := slices.Clone(snap.Allocations)
		slices.Reverse(reversed)
		s2, problems2 := leasestore.Build(ipam.Snapshot{Spec: snap.Spec, Allocations: reversed}, opts4)
		if got, want := fmt.Sprint(table(s2), problems2), fmt.Sprint(table(s), problems); got != want {
			t.Fatalf("Build depends on the order:\n%s\n%s", want, got)
		}
		if spec.Validate() != nil {
			if s.Len() != 0 || len(problems) != 1 {
				t.Fatalf("invalid spec: %d leases, problems %v", s.Len(), problems)
			}
			return
		}
		pool, _ := ipam.New(spec)
		checkStore(t, s, modelTable(snap.Allocations, func(a netip.Addr) bool { return pool.Check(a) == nil }), nil)
		entryProblems := 0
		for _, p := range problems {
			if !errors.Is(p, leasestore.ErrInvalidOptions) {
				entryProblems++
			}
		}
		if entryProblems != len(snap.Allocations)-s.Len() {
			t.Fatalf("%d allocations, %d leases, %d problems", len(snap.Allocations), s.Len(), len(problems))
		}
		if got, want := fmt.Sprint(leases(leasestore.Diff(nil, s).Apply(nil))), fmt.Sprint(leases(s)); got != want {
			t.Fatalf("Diff(nil, s).Apply(nil) != s:\n got %s\nwant %s", got, want)
		}
	})
}
