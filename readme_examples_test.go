package vmnetkit_test

// Everything in this file after the imports is the ```go blocks of
// README.md, in order, byte for byte, joined by one blank line:
// TestREADMEGoBlocks fails when the two differ. Edit both together.

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// Example_embed is a controller's flow: the strings of a custom resource's
// spec become a pool, a NIC gets an address, the status map survives a
// restart, and the DHCP agent serves a lease table built from the same pool.
func Example_embed() {
	spec, err := ipam.SpecText{ // the custom resource's spec, as written
		CIDR: "10.20.0.0/24", Start: "10.20.0.10", End: "10.20.0.200",
		Exclude:  []string{"10.20.0.10-10.20.0.19"},
		Reserved: []string{"10.20.0.1"}, // the router: outside Start..End, so nothing to reserve
		Owners:   "MAC",                 // every spelling of a MAC is one owner
	}.Parse() // errors name the field: exclude[0] "10.20.0.77/24": prefix has host bits set ...
	if err != nil {
		panic(err)
	}
	pool, err := ipam.New(spec)
	if err != nil {
		panic(err)
	}
	addr, err := pool.Allocate("52:54:00:aa:00:01") // the lowest free address; the same one again for this MAC
	if err != nil {
		panic(err)
	}
	status := ipam.FormatAllocated(pool.Snapshot()) // the status map: address -> MAC or EXCLUDED
	stats, err := json.Marshal(pool.Stats())        // exact counts, as decimal strings
	if err != nil {
		panic(err)
	}
	fmt.Println(addr, len(status), status["10.20.0.10"], status["10.20.0.20"])
	fmt.Println(string(stats))

	// A restarted process rebuilds the same pool from the status map.
	pool, problems, err := ipam.RestoreAllocated(spec, status)
	if err != nil {
		panic(err)
	}
	again, err := pool.Allocate("52-54-00-AA-00-01")
	fmt.Println(again, len(problems), err)

	// The DHCP agent's lease table, from the same snapshot.
	table, leaseProblems := leasestore.Build(pool.Snapshot(), leasestore.Options{
		ServerIP: netip.MustParseAddr("10.20.0.2"), LeaseTime: time.Hour,
	})
	lease, ok := table.Lookup(leasestore.MustParseMAC("5254.00aa.0001"))
	fmt.Println(lease.Addr, lease.Prefix, ok, len(leaseProblems))
	// Output:
	// 10.20.0.20 11 EXCLUDED 52:54:00:aa:00:01
	// {"size":"191","allocated":"1","excluded":"10","reserved":"0","free":"180"}
	// 10.20.0.20 0 <nil>
	// 10.20.0.20 10.20.0.0/24 true 0
}

// PoolStatus is what the cacheready machine reads and writes in a custom
// resource's status: the conditions, and the epoch stored beside them.
type PoolStatus struct {
	Conditions []conditions.Condition // []metav1.Condition through the kube module
	CacheEpoch string
}

// syncCache is the CacheReady part of a Reconcile. m is this process's
// machine for the object, made once with cacheready.New(epoch); build
// rebuilds the in-memory cache. Write st, and keep the machine syncCache
// returns only once that write succeeded.
func syncCache(m cacheready.Machine, generation int64, st *PoolStatus, now time.Time,
	build func(generation int64) error) cacheready.Machine {
	observed := cacheready.Observed{Generation: generation, StoredEpoch: st.CacheEpoch}
	if c, ok := conditions.Find(st.Conditions, cacheready.Type); ok {
		observed.Stored = &c // a True from another epoch is never trusted
	}
	d := cacheready.Driver[struct{}]{ // the loop around Machine.Step, written once
		Publish: func(c conditions.Condition, epoch string, _ struct{}, _ bool) error {
			st.Conditions, _ = conditions.Set(st.Conditions, c, now)
			st.CacheEpoch = epoch
			return nil // the caller writes st
		},
		Build: func(gen int64) (struct{}, error) { return struct{}{}, build(gen) },
	}
	m, _ = d.Run(m, observed) // Publish never fails here
	return m
}

// Example_readiness: a VM with a DHCP NIC and a static uplink is ready once
// the DHCP NIC has a usable address of its own; link-local does not count.
func Example_readiness() {
	dhcp, err := readiness.ParseDevice("IPV4_DHCP", "52:54:00:12:34:56", nil)
	if err != nil {
		panic(err) // an unknown type is an error, never a silent default
	}
	uplink, err := readiness.ParseDevice("IPV4", "52:54:00:12:34:57", []string{"192.0.2.10/32"})
	if err != nil {
		panic(err)
	}
	in := readiness.Input{
		Devices: []readiness.Device{dhcp, uplink},
		NICs: []readiness.NIC{ // what the hypervisor's guest tools report
			{MAC: "52:54:00:12:34:56", Addrs: []netip.Addr{netip.MustParseAddr("169.254.7.1")}},
			{MAC: "52-54-00-12-34-57", Addrs: []netip.Addr{netip.MustParseAddr("192.0.2.10")}},
		},
	}
	v := readiness.Evaluate(in, readiness.Strict)
	fmt.Println(v.Ready, v.Reason, v.Message)

	in.NICs[0].Addrs = append(in.NICs[0].Addrs, netip.MustParseAddr("10.20.0.20"))
	v = readiness.Evaluate(in, readiness.Strict)
	fmt.Println(v.Ready, v.Addresses)
	// Output:
	// false WaitingForNetworkAddresses nic 0 (52:54:00:12:34:56): waiting for dhcp4
	// true [10.20.0.20 192.0.2.10]
}
