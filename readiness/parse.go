package readiness

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
	"github.com/vmnetkit/vmnetkit/internal/hwaddr"
)

// Device types accepted by [ParseDevice], Cluster API style. They are
// case-sensitive: "ipv4_dhcp" is an error, never a silent default.
const (
	// TypeNone: the device wants no address; no static addresses allowed.
	TypeNone = "NONE"
	// TypeIPv4: static IPv4 only; at least one address, all IPv4.
	TypeIPv4 = "IPV4"
	// TypeIPv6: static IPv6 only; at least one address, all IPv6.
	TypeIPv6 = "IPV6"
	// TypeIPv4v6: static dual stack; at least one IPv4 and one IPv6 address.
	TypeIPv4v6 = "IPV4V6"
	// TypeIPv4DHCP: DHCPv4. Static IPv6 addresses may be added (DHCPv4 plus
	// static IPv6); static IPv4 addresses are an error ([ErrStaticWithDHCP]).
	TypeIPv4DHCP = "IPV4_DHCP"
	// TypeIPv6DHCP: an IPv6 address from DHCPv6 or SLAAC. Static IPv4
	// addresses may be added; static IPv6 addresses are an error.
	TypeIPv6DHCP = "IPV6_DHCP"
	// TypeIPv4v6DHCP: both DHCPv4 and DHCPv6; no static addresses.
	TypeIPv4v6DHCP = "IPV4V6_DHCP"
)

// ParseDevice builds a Device from a Cluster API style spec: a type string
// (one of the Type constants, exactly), a MAC ("" for none; else
// aa:bb:cc:dd:ee:ff, AA-BB-CC-DD-EE-FF, aabb.ccdd.eeff or aabbccddeeff in any case) and
// static addresses, each "10.1.1.1" or "10.1.1.1/24" (see [ParseStaticAddr]).
//
// The returned Device holds the MAC in lowercase colon form and the static
// addresses in the order given. The first error found is returned, wrapping
// [ErrUnknownType], [ErrInvalidMAC], [ErrInvalidStatic],
// [ErrDuplicateStatic], [ErrStaticWithDHCP], [ErrStaticNotAllowed] or
// [ErrMissingStatic]. A Device ParseDevice returns is never an invalid spec
// on its own for [Evaluate].
func ParseDevice(typ, mac string, static []string) (Device, error) {
	var d Device
	var allow4, allow6, need4, need6 bool
	switch typ {
	case TypeNone:
	case TypeIPv4:
		allow4, need4 = true, true
	case TypeIPv6:
		allow6, need6 = true, true
	case TypeIPv4v6:
		allow4, allow6, need4, need6 = true, true, true, true
	case TypeIPv4DHCP:
		d.DHCP4, allow6 = true, true
	case TypeIPv6DHCP:
		d.DHCP6, allow4 = true, true
	case TypeIPv4v6DHCP:
		d.DHCP4, d.DHCP6 = true, true
	default:
		return Device{}, fmt.Errorf("readiness: parse device type %s: %w (want one of %s)", errtext.Quote(typ), ErrUnknownType, strings.Join(allTypes[:], ", "))
	}
	if mac != "" {
		m, ok := hwaddr.Canonical(mac)
		if !ok {
			return Device{}, fmt.Errorf("readiness: parse device MAC %s: %w", errtext.Quote(mac), ErrInvalidMAC)
		}
		d.MAC = m
	}
	if len(static) > 0 {
		d.Static = make([]netip.Addr, 0, len(static))
	}
	var has4, has6 bool
	for _, s := range static {
		a, err := ParseStaticAddr(s)
		if err != nil {
			return Device{}, err
		}
		is4 := a.Is4()
		switch {
		case is4 && d.DHCP4, !is4 && d.DHCP6:
			return Device{}, fmt.Errorf("readiness: parse device %s static address %s: %w", typ, errtext.Quote(s), ErrStaticWithDHCP)
		case is4 && !allow4, !is4 && !allow6:
			return Device{}, fmt.Errorf("readiness: parse device %s static address %s: %w", typ, errtext.Quote(s), ErrStaticNotAllowed)
		}
		for _, b := range d.Static {
			if a == b {
				return Device{}, fmt.Errorf("readiness: parse device %s static address %s: %w", typ, errtext.Quote(s), ErrDuplicateStatic)
			}
		}
		has4, has6 = has4 || is4, has6 || !is4
		d.Static = append(d.Static, a)
	}
	if need4 && !has4 {
		return Device{}, fmt.Errorf("readiness: parse device %s: %w: no IPv4 address", typ, ErrMissingStatic)
	}
	if need6 && !has6 {
		return Device{}, fmt.Errorf("readiness: parse device %s: %w: no IPv6 address", typ, ErrMissingStatic)
	}
	return d, nil
}

var allTypes = [...]string{TypeNone, TypeIPv4, TypeIPv6, TypeIPv4v6, TypeIPv4DHCP, TypeIPv6DHCP, TypeIPv4v6DHCP}

// ParseStaticAddr parses a static address given as an address ("10.1.1.1",
// "2001:db8::1") or as an address with its prefix length ("10.1.1.1/24"); the
// prefix length is checked, then dropped. The address must be able to be a
// VM's address: not zoned, not IPv4-mapped IPv6, and usable under the
// Strict policy's rule 1 (not unspecified, in 0.0.0.0/8, loopback,
// link-local, multicast or 255.255.255.255; IgnoreReason's
// table). 240.0.0.0/4 other than 255.255.255.255 is accepted. Errors wrap [ErrInvalidStatic] and end with the reason,
// such as "broadcast".
func ParseStaticAddr(s string) (netip.Addr, error) {
	var a netip.Addr
	if len(s) > maxAddrText { // netip's own errors would quote all of it
		return netip.Addr{}, fmt.Errorf("readiness: parse static address %s: %w: too long", errtext.Quote(s), ErrInvalidStatic)
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Addr{}, fmt.Errorf("readiness: parse static address %s: %w: %v", errtext.Quote(s), ErrInvalidStatic, err)
		}
		a = p.Addr()
	} else {
		var err error
		if a, err = netip.ParseAddr(s); err != nil {
			return netip.Addr{}, fmt.Errorf("readiness: parse static address %s: %w: %v", errtext.Quote(s), ErrInvalidStatic, err)
		}
	}
	if why := staticDefect(a); why != "" {
		return netip.Addr{}, fmt.Errorf("readiness: parse static address %s: %w: %s", errtext.Quote(s), ErrInvalidStatic, why)
	}
	return a, nil
}

// maxAddrText is longer than any address with a prefix length and zone a
// VM's static address can have; longer text is refused before it is parsed.
const maxAddrText = 64

// staticDefect says why a cannot be a static address, or "" if it can.
func staticDefect(a netip.Addr) string {
	switch {
	case !a.IsValid():
		return "zero address"
	case a.Zone() != "":
		return "zoned"
	case a.Is4In6():
		return "IPv4-mapped IPv6"
	}
	if r, usable := classify(a, nil); !usable {
		return r.String()
	}
	return ""
}
