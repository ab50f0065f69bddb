package ipam_test

import (
	"fmt"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/ipam"
)

func ExampleAddressList_Parse() {
	// An InClusterIPPool's spec: the network address 10.0.0.0 and the
	// gateway are left out, and so are the gaps between the listed ranges.
	list := ipam.AddressList{
		Addresses:         []string{"10.0.0.64/28", "10.0.0.0-10.0.0.5", "10.0.0.31"},
		Prefix:            24,
		Gateway:           "10.0.0.1",
		ExcludedAddresses: []string{"10.0.0.70-10.0.0.79"},
	}
	spec, err := list.Parse()
	if err != nil {
		panic(err)
	}
	fmt.Println("prefix:  ", spec.Prefix)
	fmt.Println("range:   ", spec.Start, spec.End)
	fmt.Println("exclude: ", spec.Exclude)
	fmt.Println("reserved:", spec.Reserved)
	pool, _ := ipam.New(spec)
	var got []netip.Addr
	for _, claim := range []string{"default/m-0", "default/m-1", "default/m-2", "default/m-3", "default/m-4"} {
		addr, _ := pool.Allocate(claim)
		got = append(got, addr)
	}
	fmt.Println(got)
	s := pool.Stats()
	fmt.Println("handed out:", s.Allocated, "left:", s.Free)

	list.Addresses = append(list.Addresses, "10.0.1.7")
	_, err = list.Parse()
	fmt.Println(err)
	// Output:
	// prefix:   10.0.0.0/24
	// range:    10.0.0.2 10.0.0.69
	// exclude:  [10.0.0.6-10.0.0.30 10.0.0.32-10.0.0.63]
	// reserved: []
	// [10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 10.0.0.31]
	// handed out: 5 left: 6
	// ipam: spec addresses[3] "10.0.1.7": outside subnet 10.0.0.0/24 (the lowest address's /24): invalid spec
}
