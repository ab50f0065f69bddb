package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/vmnetkit/vmnetkit/ipam"
)

// ipamSection allocates addresses from an IPv4 pool with a range, an
// excluded block and a reserved router, releases and re-allocates one,
// writes the pool as a status map and restores it from there, then
// allocates from an IPv6 /64.
func ipamSection(w io.Writer) error {
	spec := labSpec()
	pool, err := ipam.New(spec)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "pool %s, range %s, excluded %s, router %s reserved\n",
		spec.Prefix, pool.Range(), spec.Exclude[0], spec.Reserved[0])
	for i := range 5 {
		mac := labMAC(i + 1)
		addr, err := pool.Allocate(mac)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %s -> %s\n", mac, addr)
	}
	released, _ := pool.ReleaseOwner("52:54:00:aa:bb:03")
	again, err := pool.Allocate("52:54:00:aa:bb:06")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "52:54:00:aa:bb:03 releases %s; 52:54:00:aa:bb:06 gets the lowest free address: %s\n", released, again)
	stats, _ := json.Marshal(pool.Stats())
	fmt.Fprintf(w, "stats: %s\n", stats)

	// What a controller writes to its custom resource's status, and how a
	// restarted process gets the same pool back from it.
	status := ipam.FormatAllocated(pool.Snapshot())
	keys := slices.Sorted(maps.Keys(status))
	fmt.Fprintf(w, "status map (%d entries): %s=%s, %s=%s, ...\n", len(status), keys[0], status[keys[0]], keys[1], status[keys[1]])
	restored, problems, err := ipam.RestoreAllocated(spec, status)
	if err != nil {
		return err
	}
	same := maps.Equal(maps.Collect(pool.All()), maps.Collect(restored.All())) && pool.Stats() == restored.Stats()
	a1, _ := pool.Allocate("52:54:00:aa:bb:07")
	a2, _ := restored.Allocate("52-54-00-AA-BB-07") // one MAC, any spelling
	fmt.Fprintf(w, "restored from the status map: %d problems, same allocations and stats: %v, next address %s and %s\n",
		len(problems), same, a1, a2)

	start := netip.MustParseAddr("2001:db8:0:1::1:0")
	end := netip.MustParseAddr("2001:db8:0:1::10:423f") // start + 999,999
	v6, err := ipam.New(ipam.Spec{Prefix: netip.MustParsePrefix("2001:db8:0:1::/64"), Start: start, End: end})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\npool 2001:db8:0:1::/64, range %s (%s addresses)\n", v6.Range(), v6.Stats().Size)
	var got []string
	for _, vm := range []string{"vm-a", "vm-b", "vm-c"} {
		addr, err := v6.Allocate(vm)
		if err != nil {
			return err
		}
		got = append(got, vm+" -> "+addr.String())
	}
	fmt.Fprintf(w, "  %s\n", strings.Join(got, ", "))
	fmt.Fprintf(w, "stats: %s\n", v6.Stats())
	return nil
}
