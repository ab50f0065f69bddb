// Command quickstart tells the story of vmnetkit in a few screens: a pool of
// addresses, the DHCP lease table built from it, the CacheReady condition
// across a controller restart, the network-readiness verdicts of common VM
// shapes, and the DHCP packet an agent builds from a lease.
//
// Run it from the repository root:
//
//	go run ./examples/quickstart
package main

import (
	"fmt"
	"io"
	"os"
)

// section is one chapter of the story; each lives in its own file.
type section struct {
	title string
	run   func(w io.Writer) error
}

// sections are printed in this order.
var sections = []section{
	{"A pool of addresses: IPv4 and IPv6, a status map and a restart", ipamSection},
	{"The DHCP lease table, rebuilt from the pool", leasestoreSection},
	{"CacheReady across a controller restart", conditionsSection},
	{"Is the VM's network ready? NIC by NIC", readinessSection},
	{"The DHCP agent's answer to a DISCOVER", dhcpSection},
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	fmt.Fprintln(w, "vmnetkit quickstart")
	for i, s := range sections {
		fmt.Fprintf(w, "\n%d. %s\n", i+1, s.title)
		if err := s.run(w); err != nil {
			return fmt.Errorf("%s: %w", s.title, err)
		}
	}
	return nil
}
