package main

import (
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/leasestore"
)

// leasestoreSection builds the DHCP lease table from the pool of the ipam
// section, gives one VM a new NIC (a new MAC on the same address), and
// prints the plan an agent applies.
func leasestoreSection(w io.Writer) error {
	pool, err := labPool(3)
	if err != nil {
		return err
	}
	// Options hold addresses only: the agent resolved any names before.
	opts := leasestore.Options{
		ServerIP:   netip.MustParseAddr("192.168.10.1"),
		Router:     netip.MustParseAddr("192.168.10.1"),
		DNS:        []netip.Addr{netip.MustParseAddr("192.168.10.1")},
		DomainName: "lab.example",
		LeaseTime:  time.Hour,
	}
	old, problems := leasestore.Build(pool.Snapshot(), opts)
	fmt.Fprintf(w, "lease table from the pool snapshot (%d problems), router %s, lease time %s:\n",
		len(problems), opts.Router, opts.LeaseTime)
	for l := range old.All() {
		fmt.Fprintf(w, "  %s\n", l)
	}

	// VM 2 gets a new NIC: the controller moves its address to the new MAC,
	// spelled the way its API reports it.
	addr, _ := pool.ReleaseOwner("52:54:00:aa:bb:02")
	if err := pool.AllocateAddr(addr, "52-54-00-AA-BB-22"); err != nil {
		return err
	}
	new, _ := leasestore.Build(pool.Snapshot(), opts)
	plan := leasestore.Diff(old, new)
	fmt.Fprintf(w, "52:54:00:aa:bb:02 becomes 52-54-00-AA-BB-22 on %s; the plan:\n", addr)
	for _, l := range plan.Remove {
		fmt.Fprintf(w, "  remove %s\n", l)
	}
	for _, l := range plan.Add {
		fmt.Fprintf(w, "  add    %s\n", l)
	}
	for _, c := range plan.Update {
		fmt.Fprintf(w, "  update %s -> %s\n", c.Old, c.New)
	}

	// A DHCPDISCOVER carries the MAC as bytes; any spelling finds the lease.
	mac, err := leasestore.MACFrom([]byte{0x52, 0x54, 0x00, 0xaa, 0xbb, 0x22})
	if err != nil {
		return err
	}
	l, ok := new.Lookup(mac)
	fmt.Fprintf(w, "DHCPDISCOVER from %s -> %s (found: %v)\n", mac, l.Addr, ok)
	return nil
}
