package main

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseRelays6: -relays6 reads addresses (as /128) and prefixes,
// spaces and empty items ignored; the refusals are TestRunErrors' cases.
func TestParseRelays6(t *testing.T) {
	p := netip.MustParsePrefix
	for _, tc := range []struct {
		name string
		in   string
		want []netip.Prefix
	}{
		{"empty: none", "", nil},
		{"only commas", " , ,", nil},
		{"one address", "2001:db8::1", []netip.Prefix{p("2001:db8::1/128")}},
		{"a link-local address", "fe80::1", []netip.Prefix{p("fe80::1/128")}},
		{"address and prefix", "2001:db8::1, fd00:1::/64", []netip.Prefix{p("2001:db8::1/128"), p("fd00:1::/64")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseRelays6(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
				t.Errorf("parseRelays6(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}
