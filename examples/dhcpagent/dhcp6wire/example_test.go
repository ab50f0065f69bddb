package dhcp6wire_test

import (
	"fmt"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

func ExampleDecode() {
	// A SOLICIT relayed once, with the client's link-layer address.
	b := dhcp6wire.Append(nil, &dhcp6wire.Packet{
		Relays: []dhcp6wire.Relay{{
			Type: dhcp6wire.RelayForw, LinkAddr: netip.MustParseAddr("2001:db8:30::1"),
			PeerAddr: netip.MustParseAddr("fe80::5054:ff:fe12:3456"), InterfaceID: []byte("port7"),
			LinkLayerType: 1, LinkLayerAddr: []byte{0x52, 0x54, 0, 0x12, 0x34, 0x56},
		}},
		Msg: dhcp6wire.Message{
			Type: dhcp6wire.Solicit, TransactionID: [3]byte{0xda, 0xa7, 0x0b},
			ClientID: dhcp6wire.AppendDUIDLL(nil, [6]byte{0x52, 0x54, 0, 0x12, 0x34, 0x56}),
			IANA:     []dhcp6wire.IANA{{IAID: 1}},
			ORO:      []dhcp6wire.OptionCode{dhcp6wire.OptionDNSServers},
		},
	})
	var p dhcp6wire.Packet
	if err := dhcp6wire.Decode(&p, b); err != nil {
		fmt.Println(err)
		return
	}
	r := p.Relays[0]
	fmt.Printf("%s from %s on %s, interface-id %q, link-layer %x\n", r.Type, r.PeerAddr, r.LinkAddr, r.InterfaceID, r.LinkLayerAddr)
	duid, _ := dhcp6wire.ParseDUID(p.Msg.ClientID)
	mac, _ := duid.MAC()
	fmt.Printf("%s xid %x, IAID %d, DUID type %d with MAC %x, wants DNS: %v\n",
		p.Msg.Type, p.Msg.TransactionID, p.Msg.IANA[0].IAID, duid.Type, mac, p.Msg.Requests(dhcp6wire.OptionDNSServers))
	// Output:
	// RELAY-FORW from fe80::5054:ff:fe12:3456 on 2001:db8:30::1, interface-id "port7", link-layer 525400123456
	// SOLICIT xid daa70b, IAID 1, DUID type 3 with MAC 525400123456, wants DNS: true
}

func ExampleAppendDomainList() {
	b, err := dhcp6wire.AppendDomainList(nil, []string{"lab.example.com"})
	fmt.Printf("%q %v\n", b, err)
	names, err := dhcp6wire.ParseDomainList(b)
	fmt.Println(names, err)
	// Output:
	// "\x03lab\aexample\x03com\x00" <nil>
	// [lab.example.com] <nil>
}
