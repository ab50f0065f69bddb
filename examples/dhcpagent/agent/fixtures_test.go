package agent

import (
	"testing"

	"github.com/go-logr/logr"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The lab pool's clients, addresses, message builders and reply views are
// dhcp4test's, shared with the other package's tests; labPool is here
// because dhcp4test cannot import poolsource (poolsource's tests import
// dhcp4test).

// labPool is the lab pool with the given status.allocated.
func labPool(allocated map[string]string) *poolsource.Pool {
	return &poolsource.Pool{
		APIVersion: "network.vmnetkit.dev/v1alpha1",
		Kind:       "IPPool",
		Metadata:   poolsource.ObjectMeta{Name: "lab", Namespace: "default"},
		Spec: poolsource.PoolSpec{
			IPPoolSpec: dhcp4test.LabSpec(),
			LeaseTime:  poolsource.Duration(dhcp4test.LabLeaseTime),
		},
		Status: poolsource.PoolStatus{Allocated: allocated},
	}
}

func quietLogger() logr.Logger { return logr.Discard() }

// newAgent is an agent serving p; the load must have no problems.
func newAgent(t testing.TB, p *poolsource.Pool, log logr.Logger, opts ...Option) *Agent {
	t.Helper()
	a := New(nil, append([]Option{WithLogger(log)}, opts...)...)
	u, err := a.Apply(p)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if len(u.Problems) > 0 {
		t.Fatalf("Apply: problems: %v", u.Problems)
	}
	return a
}

func labStore(t testing.TB, allocated map[string]string) *leasestore.Store {
	t.Helper()
	return newAgent(t, labPool(allocated), logr.Discard()).Table()
}
