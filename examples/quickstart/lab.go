package main

import (
	"fmt"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/ipam"
	"go4.org/netipx"
)

// labSpec is the IPv4 pool the story follows from section to section: a
// range inside a /24, an excluded block, and the router reserved.
func labSpec() ipam.Spec {
	return ipam.Spec{
		Prefix:   netip.MustParsePrefix("192.168.10.0/24"),
		Start:    netip.MustParseAddr("192.168.10.1"),
		End:      netip.MustParseAddr("192.168.10.200"),
		Exclude:  []netipx.IPRange{netipx.MustParseIPRange("192.168.10.2-192.168.10.9")},
		Reserved: []netip.Addr{netip.MustParseAddr("192.168.10.1")}, // the router
	}
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
