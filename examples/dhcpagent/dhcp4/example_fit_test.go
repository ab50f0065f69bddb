package dhcp4_test

import (
	"fmt"
	"net"
	"os"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// A pool with more name servers than a reply can carry: a client that
// advertises no maximum message size gets the 548-byte DHCP message of a
// 576-byte datagram, with as many name servers as fit; one that advertises
// 1500 bytes gets them all. (offer.DNS counts those in the options field
// alone: this library's parser ignores option overload, and a client that
// honours it reads 46 more from the file and sname fields.)
func ExampleReplyWithTrim() {
	data, err := os.ReadFile("../poolsource/testdata/pool.json") // the pool source's example pool
	if err != nil {
		panic(err)
	}
	pool, err := poolsource.DecodePool(data)
	if err != nil {
		panic(err)
	}
	pool.Spec.DNS = nil
	for i := range 200 {
		pool.Spec.DNS = append(pool.Spec.DNS, fmt.Sprintf("10.30.%d.%d", i/250, i%250+1))
	}
	// The lease table, built as the agent builds it.
	spec, opts, _, err := pool.Config()
	if err != nil {
		panic(err)
	}
	snap, _ := ipam.ParseAllocated(spec, pool.Status.Allocated)
	store, _ := leasestore.Build(snap, opts)
	mac, _ := net.ParseMAC("52:54:00:aa:bb:01")
	for _, size := range []uint16{0, 1500} {
		discover, err := dhcpv4.NewDiscovery(mac, dhcpv4.WithTransactionID(dhcpv4.TransactionID{1, 2, 3, 4}))
		if err != nil {
			panic(err)
		}
		if size > 0 {
			discover.UpdateOption(dhcpv4.OptMaxMessageSize(size))
		}
		offer, trim, err := dhcp4.ReplyWithTrim(discover, store)
		if err != nil {
			panic(err)
		}
		left := trim.String()
		if left == "" {
			left = "nothing"
		}
		fmt.Printf("limit %d: %d bytes, %d name servers; left out: %s\n",
			dhcp4wire.ReplyLimit(discover), len(offer.ToBytes()), len(offer.DNS()), left)
	}
	// Output:
	// limit 548: 547 bytes, 65 name servers; left out: 6 dns 111/200; 15 domain name dropped; 42 ntp dropped; 119 domain search 0/2
	// limit 1472: 1131 bytes, 200 name servers; left out: nothing
}
