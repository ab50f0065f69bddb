package ipam_test

import (
	"encoding/json"
	"fmt"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/ipam"
	"go4.org/netipx"
)

func ExampleParseRange() {
	for _, s := range []string{
		"10.0.0.7",
		"10.0.0.10-10.0.0.19",
		"10.0.0.64/28",
		"2001:db8::4/127",
		"10.0.0.77/24",
		"::ffff:10.0.0.1",
	} {
		r, err := ipam.ParseRange(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-20s %s to %s, written %s\n", s, r.From(), r.To(), ipam.FormatRange(r))
	}
	// Output:
	// 10.0.0.7             10.0.0.7 to 10.0.0.7, written 10.0.0.7
	// 10.0.0.10-10.0.0.19  10.0.0.10 to 10.0.0.19, written 10.0.0.10-10.0.0.19
	// 10.0.0.64/28         10.0.0.64 to 10.0.0.79, written 10.0.0.64/28
	// 2001:db8::4/127      2001:db8::4 to 2001:db8::5, written 2001:db8::4/127
	// ipam: ParseRange("10.0.0.77/24"): prefix has host bits set (want 10.0.0.0/24): invalid address
	// ipam: ParseRange("::ffff:10.0.0.1"): IPv4-mapped IPv6 address: write 10.0.0.1: invalid address
}

func ExampleSpecText_Parse() {
	text := ipam.SpecText{
		CIDR:     "10.20.0.0/24",
		Start:    "10.20.0.10",
		End:      "10.20.0.200",
		Exclude:  []string{"10.20.0.50-10.20.0.59", "10.20.0.77", "10.20.0.128/28"},
		Reserved: []string{"10.20.0.1", "192.0.2.53"}, // 192.0.2.53 is outside the CIDR: left out
		Strategy: "Sequential",
		Owners:   "MAC",
	}
	spec, err := text.Parse()
	if err != nil {
		panic(err)
	}
	fmt.Println("prefix:  ", spec.Prefix)
	fmt.Println("range:   ", spec.Start, spec.End)
	fmt.Println("exclude: ", spec.Exclude)
	fmt.Println("reserved:", spec.Reserved)
	fmt.Println("strategy:", spec.Strategy, "owners:", spec.Owners)

	text.Exclude[2] = "10.20.0.77/24"
	text.Strategy = "sequential"
	_, err = text.Parse()
	fmt.Println(err)
	// Output:
	// prefix:   10.20.0.0/24
	// range:    10.20.0.10 10.20.0.200
	// exclude:  [10.20.0.50-10.20.0.59 10.20.0.77-10.20.0.77 10.20.0.128-10.20.0.143]
	// reserved: [10.20.0.1]
	// strategy: Sequential owners: MAC
	// ipam: spec exclude[2] "10.20.0.77/24": prefix has host bits set (want 10.20.0.0/24): invalid address: invalid spec
	// ipam: spec strategy "sequential": want "Lowest" or "Sequential": invalid spec
}

func ExampleFormatAllocated() {
	pool, err := ipam.New(ipam.Spec{
		Prefix:   netip.MustParsePrefix("10.0.0.0/29"),
		Exclude:  []netipx.IPRange{netipx.MustParseIPRange("10.0.0.3-10.0.0.4")},
		Reserved: []netip.Addr{netip.MustParseAddr("10.0.0.1")},
	})
	if err != nil {
		panic(err)
	}
	pool.Allocate("vm-a")
	pool.Allocate("vm-b")
	status := ipam.FormatAllocated(pool.Snapshot())
	fmt.Println(status) // fmt prints a map in key order

	snap, problems := ipam.ParseAllocated(pool.Spec(), status)
	fmt.Println(snap.Allocations, len(problems))
	// Output:
	// map[10.0.0.1:RESERVED 10.0.0.2:vm-a 10.0.0.3:EXCLUDED 10.0.0.4:EXCLUDED 10.0.0.5:vm-b]
	// [{10.0.0.2 vm-a} {10.0.0.5 vm-b}] 0
}

func ExampleOwnerKind() {
	pool, err := ipam.New(ipam.Spec{
		Prefix: netip.MustParsePrefix("10.0.0.0/29"),
		Owners: ipam.MACOwners,
	})
	if err != nil {
		panic(err)
	}
	for _, mac := range []string{"52-54-00-AA-BB-CC", "5254.00aa.bbcc", "525400AABBCC"} {
		addr, _ := pool.Allocate(mac) // one MAC, three spellings: one owner
		fmt.Println(mac, addr)
	}
	owner, _ := pool.Lookup(netip.MustParseAddr("10.0.0.1"))
	fmt.Println("stored as", owner, "- owners:", pool.Len())
	_, err = pool.Allocate("vm-1")
	fmt.Println(err)
	// Output:
	// 52-54-00-AA-BB-CC 10.0.0.1
	// 5254.00aa.bbcc 10.0.0.1
	// 525400AABBCC 10.0.0.1
	// stored as 52:54:00:aa:bb:cc - owners: 1
	// ipam: allocate "vm-1" in 10.0.0.0/29: not a MAC address: invalid owner
}

func ExampleSnapshot_MarshalJSON() {
	pool, err := ipam.New(ipam.Spec{
		Prefix:   netip.MustParsePrefix("10.0.0.0/29"),
		Reserved: []netip.Addr{netip.MustParseAddr("10.0.0.1")},
		Strategy: ipam.Sequential,
	})
	if err != nil {
		panic(err)
	}
	pool.AllocateAddr(netip.MustParseAddr("10.0.0.5"), "vm-a")
	pool.AllocateAddr(netip.MustParseAddr("10.0.0.2"), "vm-b")
	b, err := json.Marshal(pool.Snapshot())
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))

	var snap ipam.Snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		panic(err)
	}
	restored, problems, err := ipam.Restore(snap)
	fmt.Println(restored.Stats(), len(problems), err)
	// Output:
	// {"spec":{"cidr":"10.0.0.0/29","reserved":["10.0.0.1"],"strategy":"Sequential"},"allocations":[{"addr":"10.0.0.2","owner":"vm-b"},{"addr":"10.0.0.5","owner":"vm-a"}]}
	// size 6, allocated 2, excluded 0, reserved 1, free 3 0 <nil>
}
