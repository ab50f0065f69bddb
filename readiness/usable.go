package readiness

import "net/netip"

// classify says whether a is usable under Strict's first rule and, if not,
// why. It is the one place that decides which addresses can be a host's own
// unicast address: IgnoreReason's table (verdict.go) lists the same blocks,
// row for row, and TestUnusableAddressTable checks each row. Anything else is
// usable, 240.0.0.0/4 included: Linux assigns it, and overlay uplinks and
// clouds' extra private ranges use it (FIELD-CASES.md, case 1). a should be
// normalized (see normalize); it does not allocate.
func classify(a netip.Addr, ignore []netip.Prefix) (IgnoreReason, bool) {
	switch {
	case !a.IsValid():
		return IgnoredInvalid, false
	case a.IsUnspecified():
		return IgnoredUnspecified, false
	case a.IsLoopback():
		return IgnoredLoopback, false
	case a.IsLinkLocalUnicast():
		return IgnoredLinkLocal, false
	case a.IsMulticast():
		return IgnoredMulticast, false
	}
	if a.Is4() {
		switch b := a.As4(); {
		case b == [4]byte{255, 255, 255, 255}: // limited broadcast (RFC 919)
			return IgnoredBroadcast, false
		case b[0] == 0: // 0.0.0.0/8, "this network" (RFC 1122 3.2.1.3)
			return IgnoredThisNetwork, false
		}
	}
	for _, p := range ignore {
		if p = normalizePrefix(p); p.IsValid() && p.Contains(a) {
			return IgnoredPrefix, false
		}
	}
	return 0, true
}

// normalize is the form Strict compares reported addresses in: an
// IPv4-mapped IPv6 address is its IPv4 address, and a zone is dropped (a
// zone only qualifies link-local addresses, which are never usable, and
// netip.Prefix.Contains is false for any zoned address).
func normalize(a netip.Addr) netip.Addr { return a.Unmap().WithZone("") }

// normalizePrefix is the form Strict compares Ignore prefixes in, to match
// normalized addresses: a prefix inside ::ffff:0:0/96 (an IPv4-mapped
// address with at least 96 bits) is its IPv4 prefix, ::ffff:a.b.c.d/n
// becoming a.b.c.d/(n-96). Any other prefix is returned as it is, so an
// IPv6 prefix shorter than /96 (such as ::/0) never matches an IPv4
// address. It does not allocate.
func normalizePrefix(p netip.Prefix) netip.Prefix {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p
}
