// Package labtest is the lab pool of dhcp4test as the agent loads it, a
// poolsource.Pool, for the agent's and dhcp4's tests. Only tests import
// it. poolsource's own tests keep their copy of Pool: this package imports
// poolsource, so they cannot import it.
package labtest

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
)

// Pool is the lab pool, default/lab, with the given status.allocated; a
// new Pool on every call.
func Pool(allocated map[string]string) *poolsource.Pool {
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

// BigPool is Pool(allocated) with n name servers and m search domains
// (see dhcp4test.Enlarge).
func BigPool(allocated map[string]string, n, m int) *poolsource.Pool {
	p := Pool(allocated)
	dhcp4test.Enlarge(&p.Spec.IPPoolSpec, n, m)
	return p
}
