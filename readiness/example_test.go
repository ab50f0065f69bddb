package readiness_test

import (
	"fmt"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/readiness"
)

// A VM with a DHCP NIC and a static uplink NIC: the guest tools report only
// the uplink and a link-local address so far.
func ExampleEvaluate() {
	dhcp, _ := readiness.ParseDevice("IPV4_DHCP", "52:54:00:12:34:56", nil)
	uplink, _ := readiness.ParseDevice("IPV4", "52:54:00:12:34:57", []string{"192.0.2.10/32"})
	in := readiness.Input{
		Devices: []readiness.Device{dhcp, uplink},
		NICs: []readiness.NIC{
			{MAC: "52:54:00:12:34:56", Addrs: []netip.Addr{netip.MustParseAddr("169.254.7.1")}},
			{MAC: "52:54:00:12:34:57", Addrs: []netip.Addr{netip.MustParseAddr("192.0.2.10")}},
		},
	}
	v := readiness.Evaluate(in, readiness.Strict)
	fmt.Println(v.Ready, v.Reason)
	fmt.Println(v.Message)

	// The legacy rule counts the link-local address.
	old := readiness.Evaluate(in, readiness.Counting)
	fmt.Println(old.Ready, old.Addresses)

	// The DHCP lease arrives.
	in.NICs[0].Addrs = append(in.NICs[0].Addrs, netip.MustParseAddr("10.0.0.5"))
	v = readiness.Evaluate(in, readiness.Strict)
	fmt.Println(v.Ready, v.Addresses)
	// Output:
	// false WaitingForNetworkAddresses
	// nic 0 (52:54:00:12:34:56): waiting for dhcp4
	// true [169.254.7.1 192.0.2.10]
	// true [10.0.0.5 192.0.2.10]
}

// Each device verdict says what was credited and ignored, and where it was
// seen.
func ExampleVerdict_devices() {
	in := readiness.Input{
		Devices: []readiness.Device{{MAC: "52-54-00-AA-BB-01", DHCP4: true}, {MAC: "5254.00aa.bb02", DHCP4: true}},
		NICs: []readiness.NIC{
			{MAC: "52:54:00:aa:bb:01", Addrs: []netip.Addr{netip.MustParseAddr("10.0.0.5"), netip.MustParseAddr("fe80::1")}},
		},
		NodeAddrs: []netip.Addr{netip.MustParseAddr("10.0.0.5"), netip.MustParseAddr("10.1.0.7")},
	}
	v := readiness.Evaluate(in, readiness.Strict)
	fmt.Println(v.Ready, v.Addresses)
	for _, dv := range v.Devices {
		fmt.Printf("nic %d %s %s matched by %s\n", dv.Index, dv.MAC, dv.State, dv.Match)
		for _, c := range dv.Credited {
			fmt.Printf("  credited %s from %s\n", c.Addr, c.Source)
		}
		for _, ig := range dv.Ignored {
			fmt.Printf("  ignored %s from %s: %s\n", ig.Addr, ig.Source, ig.Why)
		}
	}
	// Output:
	// true [10.0.0.5 10.1.0.7]
	// nic 0 52:54:00:aa:bb:01 Satisfied matched by MAC
	//   credited 10.0.0.5 from Hypervisor
	//   ignored fe80::1 from Hypervisor: link-local
	// nic 1 52:54:00:aa:bb:02 Satisfied matched by None
	//   credited 10.1.0.7 from Node
}

func ExampleParseDevice() {
	for _, spec := range []struct {
		typ, mac string
		static   []string
	}{
		{"IPV4_DHCP", "AA-BB-CC-DD-EE-FF", nil},
		{"IPV4", "", []string{"10.1.1.1/24"}},
		{"IPV4V6_DHCP", "aabb.ccdd.eeff", nil},
		{"ipv4_dhcp", "", nil},
		{"NONE", "", []string{"10.1.1.1"}},
	} {
		d, err := readiness.ParseDevice(spec.typ, spec.mac, spec.static)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%+v\n", d)
	}
	// Output:
	// {MAC:aa:bb:cc:dd:ee:ff DHCP4:true DHCP6:false Static:[]}
	// {MAC: DHCP4:false DHCP6:false Static:[10.1.1.1]}
	// {MAC:aa:bb:cc:dd:ee:ff DHCP4:true DHCP6:true Static:[]}
	// readiness: parse device type "ipv4_dhcp": unknown device type (want one of NONE, IPV4, IPV6, IPV4V6, IPV4_DHCP, IPV6_DHCP, IPV4V6_DHCP)
	// readiness: parse device NONE static address "10.1.1.1": static address not allowed by the device type
}

func ExampleParseStaticAddr() {
	for _, s := range []string{"10.1.1.1", "10.1.1.1/24", "2001:db8::7/64", "10.1.1.1/33", "169.254.1.1", "240.255.0.1/32"} {
		a, err := readiness.ParseStaticAddr(s)
		fmt.Println(a, err)
	}
	// Output:
	// 10.1.1.1 <nil>
	// 10.1.1.1 <nil>
	// 2001:db8::7 <nil>
	// invalid IP readiness: parse static address "10.1.1.1/33": invalid static address: netip.ParsePrefix("10.1.1.1/33"): prefix length out of range
	// invalid IP readiness: parse static address "169.254.1.1": invalid static address: link-local
	// 240.255.0.1 <nil>
}

// What a hypervisor or guest agent reports, to the addresses Evaluate takes:
// the prefix length is dropped, a zone kept (Evaluate ignores it, and the
// link-local address with it).
func ExampleParseReported() {
	var nic readiness.NIC
	for _, s := range []string{"10.0.0.5/24", "fe80::1%eth0", "240.255.0.1/32", "eth0"} {
		a, err := readiness.ParseReported(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		nic.Addrs = append(nic.Addrs, a)
	}
	fmt.Println(nic.Addrs)
	// Output:
	// readiness: parse reported address "eth0": invalid reported address: not an address
	// [10.0.0.5 fe80::1%eth0 240.255.0.1]
}
