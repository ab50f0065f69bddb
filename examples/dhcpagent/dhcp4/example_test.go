package dhcp4_test

import (
	"fmt"
	"net"
	"os"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// A DISCOVER from a MAC of the pool gets an OFFER of its address, with the
// pool's options.
func ExampleReply() {
	data, err := os.ReadFile("../poolsource/testdata/pool.json") // the pool source's example pool
	if err != nil {
		panic(err)
	}
	// The lease table, built as the agent builds it.
	pool, err := poolsource.DecodePool(data)
	if err != nil {
		panic(err)
	}
	spec, opts, _, err := pool.Config()
	if err != nil {
		panic(err)
	}
	snap, _ := ipam.ParseAllocated(spec, pool.Status.Allocated)
	store, _ := leasestore.Build(snap, opts)
	mac, _ := net.ParseMAC("52:54:00:aa:bb:01")
	discover, err := dhcpv4.NewDiscovery(mac, dhcpv4.WithTransactionID(dhcpv4.TransactionID{1, 2, 3, 4}))
	if err != nil {
		panic(err)
	}

	offer, err := dhcp4.Reply(discover, store)
	if err != nil {
		panic(err)
	}
	fmt.Println(offer.MessageType(), offer.YourIPAddr, "to", offer.ClientHWAddr)
	fmt.Println("server id:", offer.ServerIdentifier())
	fmt.Println("mask:     ", net.IP(offer.SubnetMask()))
	fmt.Println("router:   ", offer.Router())
	fmt.Println("dns:      ", offer.DNS())
	fmt.Println("domain:   ", offer.DomainName(), offer.DomainSearch().Labels)
	fmt.Println("lease:    ", offer.IPAddressLeaseTime(0))
	fmt.Println("send to:  ", dhcp4.Destination(discover, offer, &net.UDPAddr{IP: net.IPv4bcast, Port: 68}))

	_, err = dhcp4.Reply(discover, nil)
	fmt.Println("before a load:", err)
	// Output:
	// OFFER 10.20.0.10 to 52:54:00:aa:bb:01
	// server id: 10.20.0.2
	// mask:      255.255.255.0
	// router:    [10.20.0.1]
	// dns:       [10.20.0.2]
	// domain:    lab.example [lab.example example]
	// lease:     1h0m0s
	// send to:   255.255.255.255:68
	// before a load: no lease table loaded
}
