package ipam

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
	"go4.org/netipx"
)

// The text rule. Every function of this package that reads an address
// from text (ParseAddr, ParseRange, SpecText.Parse, ParseAllocated and the
// JSON forms) refuses an IPv4-mapped IPv6 address such as ::ffff:10.0.0.1,
// with an error that names the IPv4 address to write instead (for an
// IPv6 pool it says that the pool never hands out the mapped block
// ::ffff:0:0/96): the two spellings would otherwise be two addresses to a
// pool (an IPv4 pool never holds the mapped one) while a DHCP server or a
// person reads them as one. It refuses a zone (fe80::1%eth0) too: a pool's
// addresses have none. A text longer than any address or prefix is
// refused as too long, whatever it holds.

// ParseAddr parses s as an IP address by the text rule: what netip.ParseAddr
// accepts, except a zone or an IPv4-mapped IPv6 address. The error wraps
// ErrInvalidAddr and quotes s (see "Errors" in the package doc).
func ParseAddr(s string) (netip.Addr, error) {
	a, err := parseAddr(s, anyFamily)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("ipam: ParseAddr(%s): %w", errtext.Quote(s), err)
	}
	return a, nil
}

// family is what a parser knows of the pool a value is for: nothing
// (ParseAddr, ParseRange), or its family, so that the advice an error
// about an IPv4-mapped address gives fits the pool.
type family uint8

const (
	anyFamily family = iota
	family4
	family6
)

// familyOf returns the family of a pool of prefix p (anyFamily for an
// invalid p).
func familyOf(p netip.Prefix) family {
	if !p.IsValid() {
		return anyFamily
	}
	return addrFamily(p.Addr())
}

// addrFamily returns the family of the valid address a.
func addrFamily(a netip.Addr) family {
	if a.Is4() {
		return family4
	}
	return family6
}

// maxAddrText is longer than any address or prefix text without a zone
// (ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128 is 49 bytes): a longer
// text is refused as too long before netip reads it, so that neither the
// parse nor its error costs more than a constant.
const maxAddrText = 64

// errTooLong is the error of a text longer than maxAddrText.
func errTooLong(what string, s string) error {
	return fmt.Errorf("too long for %s (%d bytes): %w", what, len(s), ErrInvalidAddr)
}

// parseAddr is ParseAddr with an error that does not repeat s, and
// advice about an IPv4-mapped address that fits a pool of family f.
func parseAddr(s string, f family) (netip.Addr, error) {
	host, _, zoned := strings.Cut(s, "%")
	if len(host) > maxAddrText {
		return netip.Addr{}, errTooLong("an IP address", s)
	}
	a, err := netip.ParseAddr(host)
	switch {
	case err != nil:
		return netip.Addr{}, fmt.Errorf("%s: %w", parseReason(err, host), ErrInvalidAddr)
	case zoned:
		return netip.Addr{}, fmt.Errorf("has a zone: %w", ErrInvalidAddr)
	case a.Is4In6():
		return netip.Addr{}, fmt.Errorf("%s: %w", mappedAdvice(a, f), ErrInvalidAddr)
	}
	return a, nil
}

// parseReason returns the reason of netip's error about s, without the
// function name and quoted input it starts with. s is at most maxAddrText
// bytes long.
func parseReason(err error, s string) string {
	msg := err.Error()
	if _, reason, ok := strings.Cut(msg, strconv.Quote(s)+"): "); ok {
		return reason
	}
	return msg
}

// mappedAdvice is what an error about the IPv4-mapped IPv6 address a
// says: in a pool of IPv4 (or of a family not known yet), which IPv4
// address to write; in an IPv6 pool, that the pool never hands out the
// mapped block (writing the IPv4 address would be of the other family).
func mappedAdvice(a netip.Addr, f family) string {
	if f == family6 {
		return "IPv4-mapped IPv6 address: an IPv6 pool never hands out ::ffff:0:0/96"
	}
	return "IPv4-mapped IPv6 address: write " + a.Unmap().String()
}

// mappedPrefixAdvice is mappedAdvice for the prefix p inside the
// IPv4-mapped block (so at least a /96).
func mappedPrefixAdvice(p netip.Prefix, f family) string {
	if f == family6 {
		return "IPv4-mapped IPv6 prefix: an IPv6 pool never hands out ::ffff:0:0/96"
	}
	return "IPv4-mapped IPv6 prefix: write " + netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96).String()
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
// address); a prefix may hold the IPv4-mapped block (::/80 does) but not
// lie inside it. SpecText's Exclude and AddressList's Addresses and
// ExcludedAddresses take exactly these forms. The error wraps
// ErrInvalidAddr and quotes s.
func ParseRange(s string) (netipx.IPRange, error) {
	r, err := parseRange(s, anyFamily)
	if err != nil {
		return netipx.IPRange{}, fmt.Errorf("ipam: ParseRange(%s): %w", errtext.Quote(s), err)
	}
	return r, nil
}

// parseRange is ParseRange with an error that does not repeat s, and
// advice about IPv4-mapped addresses that fits a pool of family f.
func parseRange(s string, f family) (netipx.IPRange, error) {
	if strings.Contains(s, "/") {
		if len(s) > maxAddrText {
			return netipx.IPRange{}, errTooLong("a prefix", s)
		}
		p, err := netip.ParsePrefix(s)
		switch {
		case err != nil:
			return netipx.IPRange{}, fmt.Errorf("%s: %w", parseReason(err, s), ErrInvalidAddr)
		case p != p.Masked():
			return netipx.IPRange{}, fmt.Errorf("prefix has host bits set (want %s): %w", p.Masked(), ErrInvalidAddr)
		case p.Addr().Is4In6(): // so at least a /96
			return netipx.IPRange{}, fmt.Errorf("%s: %w", mappedPrefixAdvice(p, f), ErrInvalidAddr)
		}
		return netipx.RangeOfPrefix(p), nil
	}
	from, to, isRange := strings.Cut(s, "-")
	a, err := parseAddr(from, f)
	if err != nil {
		if isRange {
			return netipx.IPRange{}, fmt.Errorf("from %s: %w", errtext.Quote(from), err)
		}
		return netipx.IPRange{}, err
	}
	if !isRange {
		return netipx.IPRangeFrom(a, a), nil
	}
	b, err := parseAddr(to, f)
	switch {
	case err != nil:
		return netipx.IPRange{}, fmt.Errorf("to %s: %w", errtext.Quote(to), err)
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
