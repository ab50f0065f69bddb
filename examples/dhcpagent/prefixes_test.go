package main

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParsePrefixes: -relays6 and -peers4 read addresses (as host
// prefixes) and prefixes of their family, spaces and empty items
// ignored; the refusals are TestRunErrors' cases.
func TestParsePrefixes(t *testing.T) {
	p := netip.MustParsePrefix
	for _, tc := range []struct {
		name string
		ipv6 bool
		in   string
		want []netip.Prefix
	}{
		{"empty: none", true, "", nil},
		{"only commas", true, " , ,", nil},
		{"one address", true, "2001:db8::1", []netip.Prefix{p("2001:db8::1/128")}},
		{"a link-local address", true, "fe80::1", []netip.Prefix{p("fe80::1/128")}},
		{"address and prefix", true, "2001:db8::1, fd00:1::/64", []netip.Prefix{p("2001:db8::1/128"), p("fd00:1::/64")}},
		{"IPv4: empty", false, "", nil},
		{"IPv4: one peer", false, "10.20.0.3", []netip.Prefix{p("10.20.0.3/32")}},
		{"IPv4: two peers and a prefix", false, "10.20.0.3,10.20.0.4, 10.20.1.0/30", []netip.Prefix{p("10.20.0.3/32"), p("10.20.0.4/32"), p("10.20.1.0/30")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsePrefixes("flag", tc.in, tc.ipv6)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
				t.Errorf("parsePrefixes(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}
