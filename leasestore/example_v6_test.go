package leasestore_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// An IPv6 pool's table: the DHCPv6 lifetimes, and the DHCPv4-only options
// reported and dropped.
func ExampleBuild_ipv6() {
	spec := ipam.Spec{Prefix: netip.MustParsePrefix("2001:db8:30::/64")}
	s, problems := leasestore.Build(ipam.Snapshot{Spec: spec, Allocations: []ipam.Allocation{
		{Addr: netip.MustParseAddr("2001:db8:30::10"), Owner: "52:54:00:12:34:56"},
	}}, leasestore.Options{
		DNS:               []netip.Addr{netip.MustParseAddr("2001:db8:30::53")},
		DomainSearch:      []string{"lab.example.com"},
		LeaseTime:         time.Hour, // the valid lifetime
		PreferredLifetime: 30 * time.Minute,
		Router:            netip.MustParseAddr("2001:db8:30::1"), // no DHCPv6 option
	})
	l, _ := s.Lookup(leasestore.MustParseMAC("52:54:00:12:34:56"))
	preferred, valid := l.Options.Lifetimes()
	fmt.Println(l, preferred, valid, l.Options.DNS, l.Options.DomainSearch)
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// 52:54:00:12:34:56 2001:db8:30::10/64 30m0s 1h0m0s [2001:db8:30::53] [lab.example.com]
	// leasestore: options: router "2001:db8:30::1": DHCPv6 has no router option (IPv6 routers send Router Advertisements): invalid DHCP options
}

func ExampleOptions_Lifetimes() {
	o := leasestore.Options{LeaseTime: time.Hour}
	fmt.Println(o.Lifetimes())
	o.PreferredLifetime = 20 * time.Minute
	fmt.Println(o.Lifetimes())
	o.ValidLifetime = leasestore.Infinity
	p, v := o.Lifetimes()
	fmt.Println(p, int64(v/time.Second))
	// Output:
	// 1h0m0s 1h0m0s
	// 20m0s 1h0m0s
	// 20m0s 4294967295
}

func ExampleMACFrom6() {
	m := leasestore.MACFrom6([6]byte{0x02, 0x54, 0x00, 0xaa, 0xbb, 0xcc})
	fmt.Println(m, m.As6() == [6]byte{0x02, 0x54, 0x00, 0xaa, 0xbb, 0xcc})
	// Output: 02:54:00:aa:bb:cc true
}
