package poolsource

import (
	"net/netip"
	"sync"

	"github.com/go-logr/logr"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
)

// The lab pool of the agent's tests (dhcp4test's), as a Pool.
const macA = dhcp4test.MACA

var (
	addrA  = dhcp4test.AddrA
	addrA2 = dhcp4test.AddrA2
)

func labPool(allocated map[string]string) *Pool {
	return &Pool{
		APIVersion: "network.vmnetkit.dev/v1alpha1",
		Kind:       "IPPool",
		Metadata:   ObjectMeta{Name: "lab", Namespace: "default"},
		Spec:       PoolSpec{IPPoolSpec: dhcp4test.LabSpec(), LeaseTime: Duration(dhcp4test.LabLeaseTime)},
		Status:     PoolStatus{Allocated: allocated},
	}
}

func labAllocated() map[string]string   { return dhcp4test.LabAllocated() }
func movedAllocated() map[string]string { return dhcp4test.MovedAllocated() }

// server stands for the agent the sources deliver to: it takes a pool
// whose spec converts (Config), as the agent's Apply does, logs "table
// swapped" for it and a refusal as an error, and serves the allocations
// of the last pool it took.
type server struct {
	log    logr.Logger
	mu     sync.Mutex
	latest *Pool
}

func (s *server) apply(p *Pool) error {
	if _, _, _, err := p.Config(); err != nil {
		s.log.Error(err, "pool rejected, table unchanged", "pool", p.Name())
		return err
	}
	s.mu.Lock()
	s.latest = p
	s.mu.Unlock()
	s.log.Info("table swapped", "pool", p.Name())
	return nil
}

// lease is what lookup finds of a MAC's allocation.
type lease struct{ Addr netip.Addr }

// lookup is the address the last pool taken allocates to mac.
func (s *server) lookup(mac string) (lease, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.latest == nil {
		return lease{}, false
	}
	for addr, owner := range s.latest.Status.Allocated {
		if owner == mac {
			return lease{netip.MustParseAddr(addr)}, true
		}
	}
	return lease{}, false
}
