package main

import (
	"fmt"
	"net/netip"
	"strings"
)

// parseRelays6 reads -relays6: IPv6 addresses (each a /128) and prefixes,
// comma-separated; empty is none.
func parseRelays6(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return nil, fmt.Errorf("-relays6 %q: want IPv6 addresses or prefixes, like 2001:db8::1 or fd00:1::/64", f)
			}
			if a.Zone() != "" {
				return nil, fmt.Errorf("-relays6 %q: want an IPv6 address or prefix without a zone", f)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if !p.Addr().Is6() || p.Addr().Is4In6() {
			return nil, fmt.Errorf("-relays6 %q: want an IPv6 address or prefix without a zone", f)
		}
		if p != p.Masked() {
			return nil, fmt.Errorf("-relays6 %q: host bits set (did you mean %s?)", f, p.Masked())
		}
		out = append(out, p)
	}
	return out, nil
}
