package ipam

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"go4.org/netipx"
)

// The text rule. Every function of this package that reads an address
// from text (ParseAddr, ParseRange, SpecText.Parse, ParseAllocated and the
// JSON forms) refuses an IPv4-mapped IPv6 address such as ::ffff:10.0.0.1,
// with an error that names the IPv4 address to write instead: the two
// spellings would otherwise be two addresses to a pool (an IPv4 pool never
// holds the mapped one) while a DHCP server or a person reads them as one.
// It refuses a zone (fe80::1%eth0) too: a pool's addresses have none.

// ParseAddr parses s as an IP address by the text rule: what netip.ParseAddr
// accepts, except a zone or an IPv4-mapped IPv6 address. The error wraps
// ErrInvalidAddr and quotes s.
func ParseAddr(s string) (netip.Addr, error) {
	a, err := parseAddr(s)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("ipam: ParseAddr(%q): %w", s, err)
	}
	return a, nil
}

// parseAddr is ParseAddr with an error that does not repeat s.
func parseAddr(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return netip.Addr{}, fmt.Errorf("%s: %w", parseReason(err, s), ErrInvalidAddr)
	case a.Zone() != "":
		return netip.Addr{}, fmt.Errorf("has a zone: %w", ErrInvalidAddr)
	case a.Is4In6():
		return netip.Addr{}, fmt.Errorf("%s: %w", mappedHint(a), ErrInvalidAddr)
	}
	return a, nil
}

// parseReason returns the reason of netip's error about s, without the
// function name and quoted input it starts with.
func parseReason(err error, s string) string {
	msg := err.Error()
	if _, reason, ok := strings.Cut(msg, strconv.Quote(s)+"): "); ok {
		return reason
	}
	return msg
}

// ParseRange parses s as an address range in one of three forms, both
// families:
//
//	10.0.0.7                 one address
//	10.0.0.10-10.0.0.19      from-to, inclusive, from not after to
//	10.0.0.64/28             a prefix, which must be canonical
//
// A prefix with host bits set (10.0.0.77/24) is an error that quotes it and
// names the canonical prefix: silently masking it would exclude the whole
// /24. Addresses follow the text rule (no zone, no IPv4-mapped IPv6
// address). The error wraps ErrInvalidAddr and quotes s.
func ParseRange(s string) (netipx.IPRange, error) {
	r, err := parseRange(s)
	if err != nil {
		return netipx.IPRange{}, fmt.Errorf("ipam: ParseRange(%q): %w", s, err)
	}
	return r, nil
}

func parseRange(s string) (netipx.IPRange, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		switch {
		case err != nil:
			return netipx.IPRange{}, fmt.Errorf("%s: %w", parseReason(err, s), ErrInvalidAddr)
		case p != p.Masked():
			return netipx.IPRange{}, fmt.Errorf("prefix has host bits set (want %s): %w", p.Masked(), ErrInvalidAddr)
		case p.Addr().Is4In6(): // so at least a /96
			return netipx.IPRange{}, fmt.Errorf("IPv4-mapped IPv6 prefix: write %s: %w",
				netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96), ErrInvalidAddr)
		}
		return netipx.RangeOfPrefix(p), nil
	}
	from, to, isRange := strings.Cut(s, "-")
	a, err := parseAddr(from)
	if err != nil {
		if isRange {
			return netipx.IPRange{}, fmt.Errorf("from %q: %w", from, err)
		}
		return netipx.IPRange{}, err
	}
	if !isRange {
		return netipx.IPRangeFrom(a, a), nil
	}
	b, err := parseAddr(to)
	switch {
	case err != nil:
		return netipx.IPRange{}, fmt.Errorf("to %q: %w", to, err)
	case a.Is4() != b.Is4():
		return netipx.IPRange{}, fmt.Errorf("from and to of different families: %w", ErrInvalidAddr)
	case b.Less(a):
		return netipx.IPRange{}, fmt.Errorf("from %s is after to %s: %w", a, b, ErrInvalidAddr)
	}
	return netipx.IPRangeFrom(a, b), nil
}

// FormatRange returns r in the form ParseRange reads: one address, a
// prefix when r is exactly one, or from-to. The zero IPRange is "".
func FormatRange(r netipx.IPRange) string {
	switch {
	case !r.IsValid():
		return ""
	case r.From() == r.To():
		return r.From().String()
	}
	if p, ok := r.Prefix(); ok {
		return p.String()
	}
	return r.From().String() + "-" + r.To().String()
}

// errRequired marks a required field left empty.
var errRequired = errors.New("required")
