package ipam_test

import (
	"fmt"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/ipam"
	"go4.org/netipx"
)

func ExampleNew() {
	pool, err := ipam.New(ipam.Spec{
		Prefix:   netip.MustParsePrefix("192.168.10.0/24"),
		Start:    netip.MustParseAddr("192.168.10.10"),
		End:      netip.MustParseAddr("192.168.10.200"),
		Exclude:  []netipx.IPRange{netipx.MustParseIPRange("192.168.10.11-192.168.10.19")},
		Reserved: []netip.Addr{netip.MustParseAddr("192.168.10.10")},
	})
	if err != nil {
		panic(err)
	}
	a, _ := pool.Allocate("52:54:00:aa:bb:01")
	b, _ := pool.Allocate("52:54:00:aa:bb:02")
	again, _ := pool.Allocate("52:54:00:aa:bb:01") // idempotent
	fmt.Println(a, b, again)
	err = pool.AllocateAddr(netip.MustParseAddr("192.168.10.15"), "52:54:00:aa:bb:03")
	fmt.Println(err)
	// Output:
	// 192.168.10.20 192.168.10.21 192.168.10.20
	// ipam: allocate "192.168.10.15" to "52:54:00:aa:bb:03" in 192.168.10.0/24: address excluded
}

func ExampleRestore() {
	spec := ipam.Spec{Prefix: netip.MustParsePrefix("10.0.0.0/29")}
	pool, _, err := ipam.Restore(ipam.Snapshot{Spec: spec, Allocations: []ipam.Allocation{
		{Addr: netip.MustParseAddr("10.0.0.3"), Owner: "vm-b"},
		{Addr: netip.MustParseAddr("10.0.0.1"), Owner: "vm-a"},
		{Addr: netip.MustParseAddr("10.0.0.9"), Owner: "vm-c"}, // outside the prefix
	}})
	if err != nil {
		panic(err)
	}
	for addr, owner := range pool.All() {
		fmt.Println(addr, owner)
	}
	next, _ := pool.Allocate("vm-d")
	fmt.Println("next:", next)
	// Output:
	// 10.0.0.1 vm-a
	// 10.0.0.3 vm-b
	// next: 10.0.0.2
}

func ExampleRestore_problems() {
	spec := ipam.Spec{Prefix: netip.MustParsePrefix("10.0.0.0/29")}
	_, problems, _ := ipam.Restore(ipam.Snapshot{Spec: spec, Allocations: []ipam.Allocation{
		{Addr: netip.MustParseAddr("10.0.0.2"), Owner: "vm-a"},
		{Addr: netip.MustParseAddr("10.0.0.1"), Owner: "vm-a"},
		{Addr: netip.MustParseAddr("10.0.0.9"), Owner: "vm-c"},
	}})
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// ipam: entry "10.0.0.2" (owner "vm-a"): "vm-a" holds 10.0.0.1: owner already holds an address
	// ipam: entry "10.0.0.9" (owner "vm-c"): outside 10.0.0.1-10.0.0.6: address out of range
}

func ExampleParseAllocated() {
	spec := ipam.Spec{
		Prefix:   netip.MustParsePrefix("10.0.0.0/24"),
		Reserved: []netip.Addr{netip.MustParseAddr("10.0.0.1")},
	}
	status := map[string]string{
		"10.0.0.1":  "RESERVED",
		"10.0.0.5":  "52:54:00:aa:bb:cc",
		"010.0.0.6": "52:54:00:aa:bb:dd",
		"10.0.0.9":  "EXCLUDED",
	}
	snap, problems := ipam.ParseAllocated(spec, status)
	fmt.Println(snap.Allocations)
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// [{10.0.0.5 52:54:00:aa:bb:cc}]
	// ipam: entry "010.0.0.6" (owner "52:54:00:aa:bb:dd"): IPv4 field has octet with leading zero: invalid address
	// ipam: entry "10.0.0.9" (owner "EXCLUDED"): spec does not exclude 10.0.0.9: marker not backed by the spec
}

func ExamplePool_Stats() {
	pool, _ := ipam.New(ipam.Spec{
		Prefix:  netip.MustParsePrefix("2001:db8::/64"),
		Exclude: []netipx.IPRange{netipx.MustParseIPRange("2001:db8::1-2001:db8::ffff")},
	})
	for _, vm := range []string{"vm-a", "vm-b"} {
		addr, _ := pool.Allocate(vm)
		fmt.Println(vm, addr)
	}
	st := pool.Stats()
	fmt.Println("size:     ", st.Size)
	fmt.Println("excluded: ", st.Excluded)
	fmt.Println("allocated:", st.Allocated)
	fmt.Println("free:     ", st.Free)
	free, exact := st.Free.Uint64()
	fmt.Println(free, exact)
	// Output:
	// vm-a 2001:db8::1:0
	// vm-b 2001:db8::1:1
	// size:      18446744073709551615
	// excluded:  65535
	// allocated: 2
	// free:      18446744073709486078
	// 18446744073709486078 true
}

func ExampleSequential() {
	pool, _ := ipam.New(ipam.Spec{Prefix: netip.MustParsePrefix("10.0.0.0/29"), Strategy: ipam.Sequential})
	a, _ := pool.Allocate("vm-a")
	pool.Release(a)
	b, _ := pool.Allocate("vm-b") // not the just-released address
	fmt.Println(a, b)
	// Output:
	// 10.0.0.1 10.0.0.2
}

func ExamplePool_Checker() {
	pool, err := ipam.New(ipam.Spec{
		Prefix:   netip.MustParsePrefix("10.0.0.0/24"),
		Exclude:  []netipx.IPRange{netipx.MustParseIPRange("10.0.0.10-10.0.0.19")},
		Reserved: []netip.Addr{netip.MustParseAddr("10.0.0.1")},
	})
	if err != nil {
		panic(err)
	}
	c := pool.Checker() // addresses in ascending order cost a comparison or two each
	for _, a := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.15", "10.0.0.20", "10.0.0.255"} {
		fmt.Println(a, c.Check(netip.MustParseAddr(a)))
	}
	// Output:
	// 10.0.0.1 ipam: check "10.0.0.1" in 10.0.0.0/24: address reserved
	// 10.0.0.2 <nil>
	// 10.0.0.15 ipam: check "10.0.0.15" in 10.0.0.0/24: address excluded
	// 10.0.0.20 <nil>
	// 10.0.0.255 ipam: check "10.0.0.255" in 10.0.0.0/24: outside 10.0.0.1-10.0.0.254: address out of range
}
