package main

import (
	"fmt"
	"net/netip"
	"strings"
)

// parsePrefixes reads a flag listing addresses (each a host prefix) and
// prefixes of one family, comma-separated; empty is none. It reads
// -relays6 (ipv6) and -peers4 (!ipv6).
func parsePrefixes(flag, s string, ipv6 bool) ([]netip.Prefix, error) {
	want := "IPv4 addresses or prefixes, like 10.20.0.3 or 10.20.0.2/31"
	if ipv6 {
		want = "IPv6 addresses or prefixes, like 2001:db8::1 or fd00:1::/64"
	}
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("-%s %q: want %s, without a zone", flag, f, want)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if p.Addr().Is6() != ipv6 || p.Addr().Is4In6() {
			return nil, fmt.Errorf("-%s %q: want %s, without a zone", flag, f, want)
		}
		if p != p.Masked() {
			return nil, fmt.Errorf("-%s %q: host bits set (did you mean %s?)", flag, f, p.Masked())
		}
		out = append(out, p)
	}
	return out, nil
}
