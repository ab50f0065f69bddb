package leasestore_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync/atomic"
	"time"

	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// examplePool is the pool of the examples: 10.0.0.0/24 with the router on
// 10.0.0.1.
var examplePool = ipam.Spec{
	Prefix:   netip.MustParsePrefix("10.0.0.0/24"),
	Reserved: []netip.Addr{netip.MustParseAddr("10.0.0.1")},
}

var exampleOptions = leasestore.Options{
	ServerIP:  netip.MustParseAddr("10.0.0.1"),
	Router:    netip.MustParseAddr("10.0.0.1"),
	DNS:       []netip.Addr{netip.MustParseAddr("10.0.0.1")},
	LeaseTime: time.Hour,
}

func exampleSnapshot(pairs ...string) ipam.Snapshot {
	return snap(examplePool, pairs...)
}

func ExampleParseMAC() {
	for _, s := range []string{"52:54:00:AB:CD:EF", "52-54-00-ab-cd-ef", "5254.00ab.cdef", "02:00:5e:10:00:00:00:01"} {
		mac, err := leasestore.ParseMAC(s)
		fmt.Println(mac, err)
	}
	// Output:
	// 52:54:00:ab:cd:ef <nil>
	// 52:54:00:ab:cd:ef <nil>
	// 52:54:00:ab:cd:ef <nil>
	// 00:00:00:00:00:00 leasestore: ParseMAC("02:00:5e:10:00:00:00:01"): 8-byte EUI-64 address, want 6 bytes: not a 6-byte MAC address
}

func ExampleMustParseMAC() {
	mac := leasestore.MustParseMAC("52-54-00-AB-CD-EF")
	fmt.Println(mac == leasestore.MustParseMAC("5254.00ab.cdef"))
	// Output: true
}

func ExampleMACFrom() {
	hw, _ := net.ParseMAC("52:54:00:ab:cd:ef")
	mac, err := leasestore.MACFrom(hw)
	fmt.Println(mac, err)
	_, err = leasestore.MACFrom(make(net.HardwareAddr, 20))
	fmt.Println(err)
	// Output:
	// 52:54:00:ab:cd:ef <nil>
	// leasestore: MACFrom("00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00"): 20-byte InfiniBand address, want 6 bytes: not a 6-byte MAC address
}

func ExampleMAC_String() {
	fmt.Println(leasestore.MustParseMAC("52-54-00-AB-CD-EF").String())
	// Output: 52:54:00:ab:cd:ef
}

func ExampleMAC_Compare() {
	macs := []leasestore.MAC{
		leasestore.MustParseMAC("52:54:00:00:00:02"),
		leasestore.MustParseMAC("02:00:00:00:00:09"),
		leasestore.MustParseMAC("52:54:00:00:00:01"),
	}
	slices.SortFunc(macs, leasestore.MAC.Compare)
	fmt.Println(macs)
	// Output: [02:00:00:00:00:09 52:54:00:00:00:01 52:54:00:00:00:02]
}

func ExampleMAC_HardwareAddr() {
	hw := leasestore.MustParseMAC("5254.00ab.cdef").HardwareAddr()
	fmt.Println(len(hw), hw)
	// Output: 6 52:54:00:ab:cd:ef
}

func ExampleMAC_MarshalText() {
	byMAC := map[leasestore.MAC]string{leasestore.MustParseMAC("52-54-00-AB-CD-EF"): "vm-a"}
	out, _ := json.Marshal(byMAC)
	fmt.Println(string(out))
	var back map[leasestore.MAC]string
	_ = json.Unmarshal([]byte(`{"5254.00ab.cdef": "vm-a"}`), &back)
	fmt.Println(back)
	// Output:
	// {"52:54:00:ab:cd:ef":"vm-a"}
	// map[52:54:00:ab:cd:ef:vm-a]
}

func ExampleOptions_Validate() {
	opts := leasestore.Options{
		Router:     netip.MustParseAddr("fd00::1"),
		DomainName: "lab..example.com",
		LeaseTime:  500 * time.Millisecond,
	}
	fmt.Println(opts.Validate(netip.MustParsePrefix("10.0.0.0/24")))
	// Output:
	// leasestore: options: router "fd00::1" is not an IPv4 address: invalid DHCP options
	// leasestore: options: domain name "lab..example.com": empty label at offset 4: invalid DHCP options
	// leasestore: options: lease time 500ms is shorter than one second: invalid DHCP options
}

func ExampleOptions_Equal() {
	a := leasestore.Options{DNS: []netip.Addr{netip.MustParseAddr("10.0.0.2")}}
	b := leasestore.Options{DNS: []netip.Addr{netip.MustParseAddr("10.0.0.2")}}
	fmt.Println(a.Equal(&b), a.Equal(nil))
	// Output: true false
}

func ExampleBuild() {
	s, problems := leasestore.Build(exampleSnapshot(
		"10.0.0.10=52:54:00:00:00:0a",
		"10.0.0.11=52-54-00-00-00-0B", // any spelling
		"10.0.0.12=vm-c",              // not a MAC
		"10.0.0.1=52:54:00:00:00:0d",  // the reserved router address
	), exampleOptions)
	for l := range s.All() {
		fmt.Println(l, l.Options.LeaseTime)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// 52:54:00:00:00:0a 10.0.0.10/24 1h0m0s
	// 52:54:00:00:00:0b 10.0.0.11/24 1h0m0s
	// leasestore: lease 10.0.0.1 for "52:54:00:00:00:0d": ipam: check "10.0.0.1" in 10.0.0.0/24: address reserved
	// leasestore: lease 10.0.0.12 for "vm-c": want xx:xx:xx:xx:xx:xx, xx-xx-xx-xx-xx-xx, xxxx.xxxx.xxxx or xxxxxxxxxxxx: not a 6-byte MAC address
}

// A MAC allocated twice keeps its lowest address, and the store still
// serves everything else.
func ExampleBuild_duplicates() {
	s, problems := leasestore.Build(exampleSnapshot(
		"10.0.0.12=52:54:00:00:00:0a",
		"10.0.0.10=52:54:00:00:00:0a",
		"10.0.0.11=52:54:00:00:00:0b",
	), exampleOptions)
	fmt.Println(s.Len(), "leases")
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// 2 leases
	// leasestore: lease 10.0.0.12 for "52:54:00:00:00:0a": MAC also holds 10.0.0.10, which it keeps: duplicate MAC
}

func ExampleStore_Lookup() {
	s, _ := leasestore.Build(exampleSnapshot("10.0.0.10=52-54-00-AB-CD-EF"), exampleOptions)
	// The MAC of a DHCP packet, as a wire library hands it over.
	chaddr := net.HardwareAddr{0x52, 0x54, 0x00, 0xab, 0xcd, 0xef}
	mac, _ := leasestore.MACFrom(chaddr)
	if l, ok := s.Lookup(mac); ok {
		fmt.Println(l.Addr, l.Prefix, l.Options.Router)
	}
	// Output: 10.0.0.10 10.0.0.0/24 10.0.0.1
}

func ExampleStore_LookupAddr() {
	s, _ := leasestore.Build(exampleSnapshot("10.0.0.10=52:54:00:ab:cd:ef"), exampleOptions)
	l, ok := s.LookupAddr(netip.MustParseAddr("10.0.0.10"))
	fmt.Println(l.MAC, ok)
	_, ok = s.LookupAddr(netip.MustParseAddr("10.0.0.11"))
	fmt.Println(ok)
	// Output:
	// 52:54:00:ab:cd:ef true
	// false
}

func ExampleStore_Len() {
	var empty *leasestore.Store // a nil Store is an empty table
	s, _ := leasestore.Build(exampleSnapshot("10.0.0.10=52:54:00:00:00:0a", "10.0.0.11=52:54:00:00:00:0b"), exampleOptions)
	fmt.Println(empty.Len(), s.Len())
	// Output: 0 2
}

func ExampleStore_All() {
	s, _ := leasestore.Build(exampleSnapshot(
		"10.0.0.11=52:54:00:00:00:01",
		"10.0.0.10=52:54:00:00:00:02",
	), exampleOptions)
	for l := range s.All() { // address order
		fmt.Println(l)
	}
	// Output:
	// 52:54:00:00:00:02 10.0.0.10/24
	// 52:54:00:00:00:01 10.0.0.11/24
}

// An agent keeps its table behind an atomic.Pointer: readers always see a
// whole table, and each rebuild is published with one Store.
func ExampleDiff() {
	var table atomic.Pointer[leasestore.Store]

	old, _ := leasestore.Build(exampleSnapshot(
		"10.0.0.10=52:54:00:00:00:0a",
		"10.0.0.11=52:54:00:00:00:0b",
		"10.0.0.12=52:54:00:00:00:0c",
	), exampleOptions)
	table.Store(old)

	// VM b gets a new NIC (new MAC, same address); c moves to .13.
	new, _ := leasestore.Build(exampleSnapshot(
		"10.0.0.10=52:54:00:00:00:0a",
		"10.0.0.11=52:54:00:00:00:1b",
		"10.0.0.13=52:54:00:00:00:0c",
	), exampleOptions)
	plan := leasestore.Diff(table.Load(), new)
	for _, l := range plan.Remove {
		fmt.Println("remove", l)
	}
	for _, l := range plan.Add {
		fmt.Println("add   ", l)
	}
	for _, c := range plan.Update {
		fmt.Println("update", c.Old, "->", c.New.Addr)
	}
	table.Store(new)
	// Output:
	// remove 52:54:00:00:00:0b 10.0.0.11/24
	// add    52:54:00:00:00:1b 10.0.0.11/24
	// update 52:54:00:00:00:0c 10.0.0.12/24 -> 10.0.0.13
}

func ExamplePlan_Apply() {
	old, _ := leasestore.Build(exampleSnapshot("10.0.0.10=52:54:00:00:00:0a"), exampleOptions)
	longer := exampleOptions
	longer.LeaseTime = 24 * time.Hour
	new, _ := leasestore.Build(exampleSnapshot("10.0.0.10=52:54:00:00:00:0a"), longer)
	plan := leasestore.Diff(old, new)
	for l := range plan.Apply(old).All() {
		fmt.Println(l, l.Options.LeaseTime)
	}
	// Output: 52:54:00:00:00:0a 10.0.0.10/24 24h0m0s
}

func ExamplePlan_Empty() {
	s, _ := leasestore.Build(exampleSnapshot("10.0.0.10=52:54:00:00:00:0a"), exampleOptions)
	again, _ := leasestore.Build(exampleSnapshot("10.0.0.10=52-54-00-00-00-0A"), exampleOptions)
	fmt.Println(leasestore.Diff(s, again).Empty())
	// Output: true
}

func ExampleLease_String() {
	s, _ := leasestore.Build(exampleSnapshot("10.0.0.10=52:54:00:00:00:0a"), exampleOptions)
	l, _ := s.Lookup(leasestore.MustParseMAC("52:54:00:00:00:0a"))
	fmt.Println(l.String())
	// Output: 52:54:00:00:00:0a 10.0.0.10/24
}

func ExampleProblem() {
	_, problems := leasestore.Build(exampleSnapshot("10.0.0.10=vm-a"), leasestore.Options{LeaseTime: time.Millisecond})
	for _, p := range problems {
		fmt.Printf("%v %q\n", p.Addr, p.Owner)
	}
	// Output:
	// invalid IP ""
	// 10.0.0.10 "vm-a"
}
