package agent_test

import (
	"fmt"
	"net"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/agent"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
)

// A client that declines its address (another host answers ARP for it)
// is not offered it again until the probation ends; the clock is the
// caller's.
func ExampleAgent_RespondAt() {
	a := agent.New(nil, agent.WithProbation(10*time.Minute))
	pool, err := poolsource.DecodePool([]byte(`{
		"metadata": {"name": "lab", "namespace": "default"},
		"spec": {"cidr": "10.20.0.0/24", "serverIP": "10.20.0.2", "router": "10.20.0.1", "leaseTime": "1h"},
		"status": {"allocated": {"10.20.0.10": "52:54:00:aa:bb:01"}}
	}`))
	if err != nil {
		panic(err)
	}
	if _, err := a.Apply(pool); err != nil {
		panic(err)
	}
	mac, _ := net.ParseMAC("52:54:00:aa:bb:01")
	decline, _ := dhcpv4.New(dhcpv4.WithHwAddr(mac), dhcpv4.WithMessageType(dhcpv4.MessageTypeDecline),
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(net.IPv4(10, 20, 0, 2))),
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(net.IPv4(10, 20, 0, 10))))
	discover, _ := dhcpv4.NewDiscovery(mac)
	inform, _ := dhcpv4.New(dhcpv4.WithHwAddr(net.HardwareAddr{2, 0, 0, 0, 0, 9}),
		dhcpv4.WithMessageType(dhcpv4.MessageTypeInform), dhcpv4.WithClientIP(net.IPv4(10, 20, 0, 77)))

	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	lease, err := dhcp4.Declined(decline, a.TableAt(t0))
	fmt.Println("declined:", lease.Addr, err)
	fmt.Println("until:   ", a.Probation().Decline(lease.MAC, lease.Addr, t0).Format(time.TimeOnly))

	_, err = a.RespondAt(discover, t0.Add(9*time.Minute))
	fmt.Println("12:09:   ", err)
	offer, _ := a.RespondAt(discover, t0.Add(10*time.Minute))
	fmt.Println("12:10:   ", offer.MessageType(), offer.YourIPAddr)

	ack, _ := a.RespondAt(inform, t0)
	fmt.Println("INFORM:  ", ack.MessageType(), "yiaddr", ack.YourIPAddr, "router", ack.Router(), "lease time", ack.Options.Has(dhcpv4.OptionIPAddressLeaseTime))
	// Output:
	// declined: 10.20.0.10 <nil>
	// until:    12:10:00
	// 12:09:    address on probation after a decline: 10.20.0.10 of 52:54:00:aa:bb:01
	// 12:10:    OFFER 10.20.0.10
	// INFORM:   ACK yiaddr 0.0.0.0 router [10.20.0.1] lease time false
}
