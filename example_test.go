package vmnetkit_test

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Example is a controller's whole flow with core functions only: the
// strings of a custom resource's spec become a pool, NICs get addresses,
// the pool is written to the resource's status as a map of strings, a
// restarted process rebuilds the same pool from that map, and a DHCP agent
// builds the lease table it serves.
func Example() {
	// The strings the custom resource holds.
	text := ipam.SpecText{
		CIDR:     "10.20.0.0/24",
		Start:    "10.20.0.10",
		End:      "10.20.0.200",
		Exclude:  []string{"10.20.0.10-10.20.0.19"},
		Reserved: []string{"10.20.0.1"}, // the router: outside the range, so ignored
		Owners:   "MAC",
	}
	spec, err := text.Parse()
	if err != nil {
		panic(err)
	}
	pool, _ := ipam.New(spec)

	// Each NIC gets an address; a MAC is one owner however it is spelled.
	a, _ := pool.Allocate("52:54:00:aa:00:01")
	b, _ := pool.Allocate("52-54-00-AA-00-02")
	again, _ := pool.Allocate("5254.00aa.0002")
	fmt.Println(a, b, again)

	// The status the controller writes, and its counts.
	status := ipam.FormatAllocated(pool.Snapshot())
	stats, _ := json.Marshal(pool.Stats())
	fmt.Println(len(status), "entries;", string(stats))

	// After a restart: the same pool from the status map.
	restored, problems, err := ipam.RestoreAllocated(spec, status)
	if err != nil || len(problems) > 0 {
		panic(fmt.Sprint(problems, err))
	}
	fmt.Print("restored: ", restored.Len(), " allocations; ")
	next, _ := restored.Allocate("52:54:00:aa:00:03")
	fmt.Println("next", next)

	// The DHCP agent's lease table, from the same snapshot.
	store, _ := leasestore.Build(restored.Snapshot(), leasestore.Options{
		ServerIP:  netip.MustParseAddr("10.20.0.2"),
		Router:    netip.MustParseAddr("10.20.0.1"),
		LeaseTime: time.Hour,
	})
	lease, _ := store.Lookup(leasestore.MustParseMAC("52:54:00:AA:00:02"))
	fmt.Println("lease:", lease.MAC, lease.Addr, lease.Prefix)

	// A bad value is an error that names the field.
	text.Exclude = append(text.Exclude, "10.20.0.77/24")
	_, err = text.Parse()
	fmt.Println(err)

	// Output:
	// 10.20.0.20 10.20.0.21 10.20.0.21
	// 12 entries; {"size":"191","allocated":"2","excluded":"10","reserved":"0","free":"179"}
	// restored: 2 allocations; next 10.20.0.22
	// lease: 52:54:00:aa:00:02 10.20.0.21 10.20.0.0/24
	// ipam: spec exclude[1] "10.20.0.77/24": prefix has host bits set (want 10.20.0.0/24): invalid address: invalid spec
}
