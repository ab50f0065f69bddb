package main

import (
	"fmt"
	"io"
	"net/netip"
	"strings"
	"text/tabwriter"

	"github.com/vmnetkit/vmnetkit/readiness"
)

// readinessSection prints the Strict verdicts of the five VM network shapes
// a Cluster API provider meets, each while pending and once ready, then one
// case where the legacy counting rule declares a machine ready too early.
func readinessSection(w io.Writer) error {
	type spec struct{ typ, mac, static string }
	type shape struct {
		name           string
		devices        []spec
		pending, ready []readiness.NIC
	}
	const m0, m1 = "52:54:00:12:34:56", "52:54:00:12:34:57"
	nic := func(mac string, addrs ...string) readiness.NIC {
		n := readiness.NIC{MAC: mac}
		for _, a := range addrs {
			n.Addrs = append(n.Addrs, netip.MustParseAddr(a))
		}
		return n
	}
	shapes := []shape{
		{
			name:    "dhcp + static uplink /32",
			devices: []spec{{"IPV4_DHCP", m0, ""}, {"IPV4", m1, "192.0.2.10/32"}},
			pending: []readiness.NIC{nic(m0, "169.254.7.1"), nic(m1, "192.0.2.10")},
			ready:   []readiness.NIC{nic(m0, "169.254.7.1", "10.0.0.5"), nic(m1, "192.0.2.10")},
		},
		{
			name:    "one dhcp",
			devices: []spec{{"IPV4_DHCP", m0, ""}},
			pending: []readiness.NIC{nic(m0)},
			ready:   []readiness.NIC{nic(m0, "10.0.0.5")},
		},
		{
			name:    "two dhcp",
			devices: []spec{{"IPV4_DHCP", m0, ""}, {"IPV4_DHCP", m1, ""}},
			pending: []readiness.NIC{nic(m0, "10.0.0.5"), nic(m1)},
			ready:   []readiness.NIC{nic(m0, "10.0.0.5"), nic(m1, "10.1.0.5")},
		},
		{
			name:    "one static",
			devices: []spec{{"IPV4", m0, "10.0.0.10/24"}},
			pending: []readiness.NIC{nic(m0)},
			ready:   []readiness.NIC{nic(m0, "10.0.0.10")},
		},
		{
			name:    "two static",
			devices: []spec{{"IPV4", m0, "10.0.0.10/24"}, {"IPV6", m1, "2001:db8::10/64"}},
			pending: []readiness.NIC{nic(m0), nic(m1, "fe80::1")},
			ready:   []readiness.NIC{nic(m0), nic(m1, "fe80::1", "2001:db8::10")},
		},
	}
	outcome := func(v readiness.Verdict) string {
		if v.Ready {
			return fmt.Sprintf("ready %v", v.Addresses)
		}
		return v.Reason + ": " + v.Message
	}

	fmt.Fprintln(w, "Strict verdicts of the five VM shapes a provider meets, pending then ready:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var legacyIn readiness.Input
	for _, s := range shapes {
		var in readiness.Input
		for _, d := range s.devices {
			var static []string
			if d.static != "" {
				static = strings.Split(d.static, ",")
			}
			dev, err := readiness.ParseDevice(d.typ, d.mac, static)
			if err != nil {
				return err
			}
			in.Devices = append(in.Devices, dev)
		}
		in.NICs = s.pending
		fmt.Fprintf(tw, "  %s\t%s\n", s.name, outcome(readiness.Evaluate(in, readiness.Strict)))
		if legacyIn.Devices == nil {
			legacyIn = in // the first shape, pending: the legacy rule's trap
		}
		in.NICs = s.ready
		fmt.Fprintf(tw, "  \t%s\n", outcome(readiness.Evaluate(in, readiness.Strict)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "The first shape while pending, under the legacy counting rule (the link-local address counts):")
	v := readiness.Evaluate(legacyIn, readiness.Counting)
	fmt.Fprintf(w, "  Counting: %s\n", outcome(v))
	for _, dv := range readiness.Evaluate(legacyIn, readiness.Strict).Devices {
		for _, ig := range dv.Ignored {
			fmt.Fprintf(w, "  Strict ignores %s on nic %d: %s\n", ig.Addr, dv.Index, ig.Why)
		}
	}
	return nil
}
