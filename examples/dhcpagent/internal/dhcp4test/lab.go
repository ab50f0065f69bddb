package dhcp4test

import (
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// The lab pool: 10.77.0.0/24, server 10.77.0.2, router 10.77.0.1.
const (
	MACA       = "52:54:00:aa:00:01" // 10.77.0.10
	MACB       = "52:54:00:aa:00:02" // 10.77.0.11
	MACUnknown = "52:54:00:ff:ff:ff"
)

var (
	ServerIP = netip.MustParseAddr("10.77.0.2")
	AddrA    = netip.MustParseAddr("10.77.0.10")
	AddrB    = netip.MustParseAddr("10.77.0.11")
	AddrA2   = netip.MustParseAddr("10.77.0.20") // where MACA moves
)

// LabLeaseTime is the lab pool's lease time.
const LabLeaseTime = 10 * time.Minute

// LabSpec is the lab pool's spec, as an IPPool states it.
func LabSpec() v1alpha1.IPPoolSpec {
	return v1alpha1.IPPoolSpec{
		CIDR:         "10.77.0.0/24",
		RangeStart:   "10.77.0.10",
		RangeEnd:     "10.77.0.200",
		Exclude:      []string{"10.77.0.100-10.77.0.109"},
		ServerIP:     "10.77.0.2",
		Router:       "10.77.0.1",
		DNS:          []string{"10.77.0.2", "10.77.0.3"},
		NTP:          []string{"10.77.0.3"},
		Domain:       "lab.example",
		DomainSearch: []string{"lab.example", "example"},
	}
}

// LabAllocated holds MACA at 10.77.0.10 and MACB at 10.77.0.11.
func LabAllocated() map[string]string {
	return map[string]string{"10.77.0.10": MACA, "10.77.0.11": MACB}
}

// MovedAllocated is LabAllocated after MACA moved to 10.77.0.20.
func MovedAllocated() map[string]string {
	return map[string]string{"10.77.0.20": MACA, "10.77.0.11": MACB}
}

// Enlarge gives spec n name servers (10.88.x.y) and m search domains,
// each name 40 to 50 bytes long: more than a reply can carry.
func Enlarge(spec *v1alpha1.IPPoolSpec, n, m int) {
	spec.DNS = nil
	for i := range n {
		spec.DNS = append(spec.DNS, netip.AddrFrom4([4]byte{10, 88, byte(i >> 8), byte(i)}).String())
	}
	spec.DomainSearch = nil
	for i := range m {
		spec.DomainSearch = append(spec.DomainSearch, fmt.Sprintf("zone-%03d.team-%02d.datacenter-eu-west.example", i, i%37))
	}
}

// NetIP is a as a net.IP, for the dhcpv4 library's modifiers.
func NetIP(a netip.Addr) net.IP { return net.IP(a.AsSlice()) }

// Discover is a DISCOVER from mac.
func Discover(t Fataler, mac string) *dhcpv4.DHCPv4 {
	t.Helper()
	return Message(t, mac, dhcpv4.MessageTypeDiscover)
}

// Selecting is a REQUEST in the SELECTING state: server identifier and
// requested IP address set, ciaddr zero.
func Selecting(t Fataler, mac string, server, addr netip.Addr) *dhcpv4.DHCPv4 {
	t.Helper()
	return Message(t, mac, dhcpv4.MessageTypeRequest,
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(NetIP(server))),
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(NetIP(addr))))
}

// InitReboot is a REQUEST in the INIT-REBOOT state: requested IP address
// set, no server identifier, ciaddr zero.
func InitReboot(t Fataler, mac string, addr netip.Addr) *dhcpv4.DHCPv4 {
	t.Helper()
	return Message(t, mac, dhcpv4.MessageTypeRequest,
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(NetIP(addr))))
}

// Renewing is a REQUEST in the RENEWING or REBINDING state: ciaddr set, no
// server identifier or requested IP address.
func Renewing(t Fataler, mac string, ciaddr netip.Addr) *dhcpv4.DHCPv4 {
	t.Helper()
	return Message(t, mac, dhcpv4.MessageTypeRequest, dhcpv4.WithClientIP(NetIP(ciaddr)))
}

// LabOptions are the options of every OFFER and ACK of the lab pool.
func LabOptions(typ string) map[string]string {
	return map[string]string{
		"1 subnet mask":     "255.255.255.0",
		"3 router":          "10.77.0.1",
		"6 dns":             "10.77.0.2,10.77.0.3",
		"15 domain name":    "lab.example",
		"42 ntp":            "10.77.0.3",
		"51 lease time":     "600",
		"53 message type":   typ,
		"54 server id":      "10.77.0.2",
		"58 renewal time":   "300",
		"59 rebinding time": "525",
		"119 domain search": "lab.example,example",
	}
}

// ReplyView is the view of a reply to a request with XID from mac.
func ReplyView(mac, ciaddr, yiaddr string, opts map[string]string) View {
	return View{
		Op: "BootReply", XID: XID.String(), CHAddr: mac,
		CIAddr: ciaddr, YIAddr: yiaddr, SIAddr: "0.0.0.0", GIAddr: "0.0.0.0",
		Options: opts,
	}
}

// OfferView is the view of the lab pool's OFFER of addr to mac.
func OfferView(mac string, addr netip.Addr) View {
	return ReplyView(mac, "0.0.0.0", addr.String(), LabOptions("OFFER"))
}

// AckView is the view of the lab pool's ACK of addr to mac.
func AckView(mac, ciaddr string, addr netip.Addr) View {
	return ReplyView(mac, ciaddr, addr.String(), LabOptions("ACK"))
}

// NakView is the view of the lab pool's NAK to mac with message.
func NakView(mac, message string) View {
	return ReplyView(mac, "0.0.0.0", "0.0.0.0", map[string]string{
		"53 message type": "NAK",
		"54 server id":    "10.77.0.2",
		"56 message":      message,
	})
}
