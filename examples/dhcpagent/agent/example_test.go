package agent_test

import (
	"fmt"
	"net"
	"os"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/agent"
)

// A DISCOVER from a MAC of the pool gets an OFFER of its address, with the
// pool's options.
func ExampleReply() {
	data, err := os.ReadFile("testdata/pool.json")
	if err != nil {
		panic(err)
	}
	a := agent.New(nil)
	if _, err := a.Load(data); err != nil {
		panic(err)
	}
	mac, _ := net.ParseMAC("52:54:00:aa:bb:01")
	discover, err := dhcpv4.NewDiscovery(mac, dhcpv4.WithTransactionID(dhcpv4.TransactionID{1, 2, 3, 4}))
	if err != nil {
		panic(err)
	}

	offer, err := agent.Reply(discover, a.Table())
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
	fmt.Println("send to:  ", agent.Destination(discover, offer, &net.UDPAddr{IP: net.IPv4bcast, Port: 68}))

	_, err = agent.Reply(discover, nil)
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

// Loading a new version of the pool swaps the table in and returns the
// plan from the one it replaces.
func ExampleAgent_Apply() {
	data, err := os.ReadFile("testdata/pool.json")
	if err != nil {
		panic(err)
	}
	a := agent.New(nil)
	if _, err := a.Load(data); err != nil {
		panic(err)
	}
	pool, err := agent.DecodePool(data)
	if err != nil {
		panic(err)
	}
	// The operator moves one VM and gives another address to a new one.
	delete(pool.Status.Allocated, "10.20.0.11")
	pool.Status.Allocated["10.20.0.12"] = "52:54:00:aa:bb:02"
	pool.Status.Allocated["10.20.0.13"] = "52:54:00:aa:bb:03"

	u, err := a.Apply(pool)
	if err != nil {
		panic(err)
	}
	fmt.Println(u.Pool, "leases:", u.Leases)
	for _, l := range u.Plan.Add {
		fmt.Println("add   ", l)
	}
	for _, c := range u.Plan.Update {
		fmt.Println("update", c.Old, "->", c.New.Addr)
	}
	for _, l := range u.Plan.Remove {
		fmt.Println("remove", l)
	}
	// Output:
	// default/lab leases: 3
	// add    52:54:00:aa:bb:03 10.20.0.13/24
	// update 52:54:00:aa:bb:02 10.20.0.11/24 -> 10.20.0.12
}
