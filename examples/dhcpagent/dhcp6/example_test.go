package dhcp6_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// A DUID-UUID client (no MAC in its DUID) with a locally administered MAC
// is found by its EUI-64 link-local source address.
func ExampleDecide() {
	store, _ := leasestore.Build(ipam.Snapshot{
		Spec:        ipam.Spec{Prefix: netip.MustParsePrefix("2001:db8:30::/64")},
		Allocations: []ipam.Allocation{{Addr: netip.MustParseAddr("2001:db8:30::11"), Owner: "02:54:00:aa:bb:cc"}},
	}, leasestore.Options{DNS: []netip.Addr{netip.MustParseAddr("2001:db8:30::53")}, PreferredLifetime: 30 * time.Minute, ValidLifetime: time.Hour})
	table := dhcp6.TableOf(store, dhcp6wire.AppendDUIDLL(nil, [6]byte{0x02, 0, 0, 0, 0, 1}))

	solicit := dhcp6wire.AppendMessage(nil, &dhcp6wire.Message{
		Type: dhcp6wire.Solicit, TransactionID: [3]byte{1, 2, 3},
		ClientID: []byte{0, 4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, // DUID-UUID
		IANA:     []dhcp6wire.IANA{{IAID: 1}},
		ORO:      []dhcp6wire.OptionCode{dhcp6wire.OptionDNSServers},
	})
	var req dhcp6wire.Packet
	if err := dhcp6wire.Decode(&req, solicit); err != nil {
		fmt.Println(err)
		return
	}
	var reply dhcp6.Reply
	d, err := dhcp6.Decide(&reply, &req, dhcp6.Arrival{Source: netip.MustParseAddr("fe80::54:ff:feaa:bbcc")}, table)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := reply.Packet.Msg
	ia := m.IANA[0]
	fmt.Println(d.Type, d.Client.MAC, "from", d.Client.Source)
	fmt.Println(ia.Addrs[0].Addr, ia.Addrs[0].Preferred, ia.Addrs[0].Valid, "T1", ia.T1, "T2", ia.T2, "DNS", m.DNS)
	// Output:
	// ADVERTISE 02:54:00:aa:bb:cc from link-local
	// 2001:db8:30::11 1800 3600 T1 900 T2 1440 DNS [2001:db8:30::53]
}
