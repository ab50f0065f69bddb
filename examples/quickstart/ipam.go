package main

import (
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
// restores the pool from its snapshot, then allocates from an IPv6 /64.
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
	fmt.Fprintf(w, "stats: %s\n", statsLine(pool.Stats()))

	snap := pool.Snapshot()
	slices.Reverse(snap.Allocations) // Restore does not care about order
	restored, problems, err := ipam.Restore(snap)
	if err != nil {
		return err
	}
	same := maps.Equal(maps.Collect(pool.All()), maps.Collect(restored.All())) && pool.Stats() == restored.Stats()
	a1, _ := pool.Allocate("52:54:00:aa:bb:07")
	a2, _ := restored.Allocate("52:54:00:aa:bb:07")
	fmt.Fprintf(w, "snapshot of %d allocations restored: %d problems, same allocations and stats: %v, next address %s and %s\n",
		len(snap.Allocations), len(problems), same, a1, a2)

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
	fmt.Fprintf(w, "stats: %s\n", statsLine(v6.Stats()))
	return nil
}

func statsLine(s ipam.Stats) string {
	return fmt.Sprintf("size %s, allocated %s, excluded %s, reserved %s, free %s", s.Size, s.Allocated, s.Excluded, s.Reserved, s.Free)
}
