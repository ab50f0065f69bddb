// Package netiptest spells the address lists of the core packages' tests
// as strings. Only tests import it: it panics on input it cannot parse,
// as netip.MustParseAddr does.
package netiptest

import "net/netip"

// Addrs parses each string as an address; "" stands for the zero Addr
// (what an unset field holds). It panics on any other string that is not
// an address.
func Addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		if s != "" {
			out[i] = netip.MustParseAddr(s)
		}
	}
	return out
}

// Prefixes parses each string as a prefix, and panics on one that is not.
func Prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}
