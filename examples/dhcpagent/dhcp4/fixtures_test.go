package dhcp4

import (
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The lab pool and its clients, addresses, message builders and reply
// views are internal/labtest's and dhcp4test's, shared with the other
// package's tests.

// storeOf is the lease table of p, built as the agent builds it
// (Pool.Config, ipam.ParseAllocated, leasestore.Build); the build must
// report no problem.
func storeOf(t testing.TB, p *poolsource.Pool) *leasestore.Store {
	t.Helper()
	store, _ := build(t, p)
	return store
}

// tableOf is the Table the agent answers from when it serves p, with
// nothing on probation: the pool's prefix and options even when it has no
// lease.
func tableOf(t testing.TB, p *poolsource.Pool) Table {
	t.Helper()
	store, spec := build(t, p)
	return Table{Leases: store, Prefix: spec.Prefix, Options: store.Options()}
}

func build(t testing.TB, p *poolsource.Pool) (*leasestore.Store, ipam.Spec) {
	t.Helper()
	spec, opts, problems, err := p.Config()
	if err != nil {
		t.Fatalf("Config: %v", err)
	}
	snap, ipamProblems := ipam.ParseAllocated(spec, p.Status.Allocated)
	store, storeProblems := leasestore.Build(snap, opts)
	if len(problems)+len(ipamProblems)+len(storeProblems) > 0 {
		t.Fatalf("build: problems: %v %v %v", problems, ipamProblems, storeProblems)
	}
	return store, spec
}
