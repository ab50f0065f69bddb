package readiness

import "net/netip"

// classify says whether a is usable under Strict's first rule and, if not,
// why. a should be normalized (see normalize); it does not allocate.
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
	for _, p := range ignore {
		if p.IsValid() && p.Contains(a) {
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
