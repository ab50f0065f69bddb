package agent

import (
	"testing"

	"github.com/go-logr/logr"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The lab pool and its clients, addresses, message builders and reply
// views are internal/labtest's and dhcp4test's, shared with the other
// package's tests.

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
	return newAgent(t, labtest.Pool(allocated), logr.Discard()).Table()
}
