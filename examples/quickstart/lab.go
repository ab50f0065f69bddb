package main

import (
	"fmt"

	"github.com/vmnetkit/vmnetkit/ipam"
)

// labText is the IPv4 pool the story follows from section to section, in
// the strings a custom resource holds: a range inside a /24, an excluded
// block, and the router reserved.
var labText = ipam.SpecText{
	CIDR:     "192.168.10.0/24",
	Start:    "192.168.10.1",
	End:      "192.168.10.200",
	Exclude:  []string{"192.168.10.2-192.168.10.9"},
	Reserved: []string{"192.168.10.1"}, // the router
	Owners:   "MAC",
}

// labSpec is labText parsed.
func labSpec() ipam.Spec {
	spec, err := labText.Parse()
	if err != nil {
		panic(err) // a constant that parses: the quickstart's tests run it
	}
	return spec
}

// labMAC is the MAC of the quickstart's VM number i (1-based).
func labMAC(i int) string { return fmt.Sprintf("52:54:00:aa:bb:%02x", i) }

// labPool returns a pool of labSpec with VMs 1 to n allocated, in order.
func labPool(n int) (*ipam.Pool, error) {
	pool, err := ipam.New(labSpec())
	if err != nil {
		return nil, err
	}
	for i := 1; i <= n; i++ {
		if _, err := pool.Allocate(labMAC(i)); err != nil {
			return nil, err
		}
	}
	return pool, nil
}
