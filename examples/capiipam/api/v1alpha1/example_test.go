package v1alpha1_test

import (
	"fmt"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// A pool's pre-allocations checked before the pool is applied: what the
// provider reports in the pool's CacheReady condition, without a cluster.
func ExamplePoolSpec_ParsePreAllocations() {
	spec := v1alpha1.PoolSpec{
		Addresses: []string{"10.0.0.10-10.0.0.50"}, Prefix: 24, Gateway: "10.0.0.1",
		PreAllocations: map[string]v1alpha1.PreAllocatedAddress{
			"web-0": "10.0.0.10",
			"web-1": "10.0.9.1",
			"web-2": "10.0.0.10",
		},
	}
	pre, errs := spec.ParsePreAllocations("fleet") // a VMNetIPPool of namespace fleet
	fmt.Println(pre)
	for _, err := range errs {
		fmt.Println(err)
	}
	// Output:
	// map[fleet/web-0:10.0.0.10]
	// spec.preAllocations[web-1]: Invalid value: "10.0.9.1": 10.0.9.1 is not in spec.addresses
	// spec.preAllocations[web-2]: Invalid value: "10.0.0.10": 10.0.0.10 is pre-allocated to web-0 too
}
