package leasestore_test

// The pools, snapshots, renderings and checks that the tests of this
// package share; each test file keeps only what it alone uses.

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go4.org/netipx"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// spec4 is the pool of most tests: 10.0.0.0/24 with a reserved router
// address and an excluded block.
var spec4 = ipam.Spec{
	Prefix:   netip.MustParsePrefix("10.0.0.0/24"),
	Exclude:  []netipx.IPRange{netipx.MustParseIPRange("10.0.0.100-10.0.0.109")},
	Reserved: []netip.Addr{netip.MustParseAddr("10.0.0.1")},
}

var opts4 = leasestore.Options{
	ServerIP:  netip.MustParseAddr("10.0.0.1"),
	Router:    netip.MustParseAddr("10.0.0.1"),
	DNS:       netiptest.Addrs("10.0.0.2"),
	LeaseTime: time.Hour,
}

// snap returns a snapshot of spec from "addr=owner" pairs.
func snap(spec ipam.Spec, pairs ...string) ipam.Snapshot {
	s := ipam.Snapshot{Spec: spec}
	for _, p := range pairs {
		addr, owner, _ := strings.Cut(p, "=")
		s.Allocations = append(s.Allocations, ipam.Allocation{Addr: netip.MustParseAddr(addr), Owner: owner})
	}
	return s
}

// table renders a store as "mac addr/bits" lines in address order.
func table(s *leasestore.Store) []string {
	var out []string
	for l := range s.All() {
		out = append(out, l.String())
	}
	return out
}

// planLines renders a plan as "+ lease", "- lease" and "~ old -> new" lines.
func planLines(p leasestore.Plan) []string {
	var out []string
	for _, l := range p.Remove {
		out = append(out, "- "+l.String())
	}
	for _, l := range p.Add {
		out = append(out, "+ "+l.String())
	}
	for _, c := range p.Update {
		out = append(out, "~ "+c.Old.String()+" -> "+c.New.String())
	}
	return out
}

// leases returns every lease of s, options included, for cmp.Diff.
func leases(s *leasestore.Store) []leasestore.Lease { return slices.Collect(s.All()) }

// cmpOpts compare netip and MAC values by ==; *Options compare with their
// Equal method.
var cmpOpts = cmp.Options{
	cmpopts.EquateComparable(leasestore.MAC{}, netip.Addr{}, netip.Prefix{}),
}

func mustBuild(t *testing.T, s ipam.Snapshot, opts leasestore.Options) *leasestore.Store {
	t.Helper()
	st, problems := leasestore.Build(s, opts)
	if len(problems) != 0 {
		t.Fatalf("Build: unexpected problems: %v", problems)
	}
	return st
}

// checkPlan checks that p applied to old gives new, and p's order.
func checkPlan(t *testing.T, old, new *leasestore.Store, p leasestore.Plan) {
	t.Helper()
	if diff := cmp.Diff(leases(new), leases(p.Apply(old)), cmpOpts); diff != "" {
		t.Errorf("Plan.Apply(old) differs from new (-want +got):\n%s", diff)
	}
	byMAC := func(a, b leasestore.Lease) int { return a.MAC.Compare(b.MAC) }
	if !slices.IsSortedFunc(p.Add, byMAC) || !slices.IsSortedFunc(p.Remove, byMAC) ||
		!slices.IsSortedFunc(p.Update, func(a, b leasestore.Change) int { return a.Old.MAC.Compare(b.Old.MAC) }) {
		t.Errorf("plan is not sorted by MAC: %v", planLines(p))
	}
}

// spell writes mac in one of the spellings ParseMAC accepts.
func spell(mac leasestore.MAC, style int) string {
	s := mac.String()
	switch style % 4 {
	case 1:
		return strings.ToUpper(strings.ReplaceAll(s, ":", "-"))
	case 2:
		h := strings.ReplaceAll(s, ":", "")
		return h[0:4] + "." + strings.ToUpper(h[4:8]) + "." + h[8:12]
	case 3:
		return strings.ReplaceAll(s, ":", "")
	}
	return s
}

// withoutResolver makes every name resolution through net.DefaultResolver
// fail the test until it ends.
func withoutResolver(t *testing.T) {
	saved := net.DefaultResolver
	net.DefaultResolver = &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			t.Errorf("name resolution attempted: dial %s %s", network, address)
			return nil, &net.OpError{Op: "dial", Net: network, Err: net.UnknownNetworkError("forbidden in tests")}
		},
	}
	t.Cleanup(func() { net.DefaultResolver = saved })
}
