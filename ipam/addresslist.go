package ipam

import (
	"errors"
	"fmt"
	"net/netip"

	"go4.org/netipx"
)

// AddressList is a pool written as a list of addresses, the form of the
// Cluster API in-cluster IPAM provider's InClusterIPPool (v1alpha2), whose
// field names and JSON it keeps:
//
//	{"addresses": ["10.0.0.10-10.0.0.20", "10.0.0.31", "10.0.0.64/28"],
//	 "prefix": 24, "gateway": "10.0.0.1", "excludedAddresses": ["10.0.0.15"]}
//
// The addresses need not be contiguous; Parse turns them into one Spec.
// Its zero value does not parse (Addresses is required).
type AddressList struct {
	// Addresses are what the pool hands out, in the forms of ParseRange
	// ("a", "a-b", a canonical "a/n"), one family, all inside the subnet.
	Addresses []string `json:"addresses"`

	// Prefix is the subnet's length: the subnet is the lowest address of
	// Addresses with its host bits cleared, and is the Spec's Prefix.
	Prefix int `json:"prefix"`

	// Gateway, when set, is never handed out (it may lie outside the subnet).
	Gateway string `json:"gateway,omitempty"`

	// ExcludedAddresses are never handed out; same forms as Addresses,
	// same family; parts outside the subnet do not matter.
	ExcludedAddresses []string `json:"excludedAddresses,omitempty"`

	// AllocateReservedIPAddresses hands out the subnet's IPv4 network and
	// broadcast addresses and its IPv6 subnet-router anycast address too
	// (Spec.AllocateSubnetEnds); false leaves them out when listed.
	AllocateReservedIPAddresses bool `json:"allocateReservedIPAddresses,omitempty"`
}

// Parse returns the Spec that hands out exactly the addresses l lists, less
// the excluded ones, the gateway and (unless AllocateReservedIPAddresses)
// the subnet's network, broadcast and subnet-router anycast addresses:
// Prefix is the subnet, Start and End the lowest and highest address left,
// the gaps between them are Exclude ranges, and the gateway, when inside
// [Start, End], is Reserved (so Stats counts it as reserved). The Strategy
// is Lowest, the owners AnyOwner. When nothing is left, the Spec's range is
// one address, excluded, and Stats counts no allocatable address.
//
// An IPv4 /31 or /32 and an IPv6 /127 or /128 have no network, broadcast or
// anycast address (RFC 3021, RFC 6164), as in every Spec: their listed
// addresses are handed out whatever AllocateReservedIPAddresses says.
//
// The error wraps ErrInvalidSpec and joins one *FieldError per bad field,
// named as in JSON with its index ("addresses[2]", "prefix", "gateway",
// "excludedAddresses[0]"): a value that does not parse (the text rule of
// ParseAddr; a prefix with host bits set is an error, not a wider range),
// an address of the other family, an address outside the subnet, a prefix
// length outside 0 to 32 (IPv4) or 0 to 128 (IPv6). It allocates.
func (l AddressList) Parse() (Spec, error) {
	var errs []error
	bad := func(field, value string, err error) {
		errs = append(errs, &FieldError{Field: field, Value: value, Err: err})
	}
	errFamily := errors.New("not of the family of addresses[0]")

	var listed []netipx.IPRange
	var is4 bool
	for i, s := range l.Addresses {
		r, err := parseRange(s)
		switch {
		case err != nil:
			bad(fmt.Sprintf("addresses[%d]", i), s, err)
			continue
		case len(listed) == 0:
			is4 = r.From().Is4()
		case r.From().Is4() != is4:
			bad(fmt.Sprintf("addresses[%d]", i), s, errFamily)
			continue
		}
		listed = append(listed, r)
	}
	if len(l.Addresses) == 0 {
		bad("addresses", "", errRequired)
	}
	bits := 128
	if is4 {
		bits = 32
	}
	if l.Prefix < 0 || (len(listed) > 0 && l.Prefix > bits) || l.Prefix > 128 {
		bad("prefix", fmt.Sprint(l.Prefix), fmt.Errorf("want 0 to %d", bits))
	}
	var gateway netip.Addr
	if l.Gateway != "" {
		a, err := parseAddr(l.Gateway)
		switch {
		case err != nil:
			bad("gateway", l.Gateway, err)
		case len(listed) > 0 && a.Is4() != is4:
			bad("gateway", l.Gateway, errFamily)
		default:
			gateway = a
		}
	}
	var excluded []netipx.IPRange
	for i, s := range l.ExcludedAddresses {
		r, err := parseRange(s)
		switch {
		case err != nil:
			bad(fmt.Sprintf("excludedAddresses[%d]", i), s, err)
		case len(listed) > 0 && r.From().Is4() != is4:
			bad(fmt.Sprintf("excludedAddresses[%d]", i), s, errFamily)
		default:
			excluded = append(excluded, r)
		}
	}
	if len(errs) > 0 {
		return Spec{}, errors.Join(errs...)
	}

	var all netipx.IPSetBuilder
	for _, r := range listed {
		all.AddRange(r)
	}
	set, _ := all.IPSet() // a builder of valid ranges has no error
	subnet := netip.PrefixFrom(set.Ranges()[0].From(), l.Prefix).Masked()
	for i, r := range listed {
		if !subnet.Contains(r.From()) || !subnet.Contains(r.To()) {
			bad(fmt.Sprintf("addresses[%d]", i), l.Addresses[i], fmt.Errorf("outside subnet %s (the lowest address's /%d)", subnet, l.Prefix))
		}
	}
	if len(errs) > 0 {
		return Spec{}, errors.Join(errs...)
	}

	spec := Spec{Prefix: subnet, AllocateSubnetEnds: l.AllocateReservedIPAddresses}
	// What the pool may hand out: the listed addresses, less the excluded
	// ones, the gateway, and what no Spec of this subnet hands out (its
	// ends unless allocated, IPv4-mapped IPv6 addresses).
	lo, hi := subnet.Addr(), netipx.PrefixLastIP(subnet)
	if !l.AllocateReservedIPAddresses {
		first, last := usableRange(subnet)
		lo, hi = first.Addr(is4), last.Addr(is4)
	}
	var b netipx.IPSetBuilder
	b.AddSet(set)
	for _, r := range excluded {
		b.RemoveRange(r)
	}
	if gateway.IsValid() {
		b.Remove(gateway)
	}
	if lo != subnet.Addr() {
		b.Remove(subnet.Addr())
	}
	if hi != netipx.PrefixLastIP(subnet) {
		b.Remove(netipx.PrefixLastIP(subnet))
	}
	b.RemovePrefix(mapped4in6)
	allowed, _ := b.IPSet()

	ranges := allowed.Ranges()
	if len(ranges) == 0 {
		// An empty pool: one address (lo is never IPv4-mapped: no subnet
		// of a listed address starts in or just before the mapped block),
		// excluded.
		spec.Start, spec.End = lo, lo
		spec.Exclude = []netipx.IPRange{netipx.IPRangeFrom(lo, lo)}
		return spec, spec.Validate()
	}
	spec.Start, spec.End = ranges[0].From(), ranges[len(ranges)-1].To()
	var gaps netipx.IPSetBuilder
	gaps.AddRange(netipx.IPRangeFrom(spec.Start, spec.End))
	gaps.RemoveSet(allowed)
	gaps.RemovePrefix(mapped4in6)
	gapSet, _ := gaps.IPSet()
	spec.Exclude = gapSet.Ranges()
	if gateway.IsValid() && netipx.IPRangeFrom(spec.Start, spec.End).Contains(gateway) {
		spec.Reserved = []netip.Addr{gateway}
	}
	return spec, spec.Validate()
}

// mapped4in6 is the IPv4-mapped IPv6 block, never usable in a Spec.
var mapped4in6 = netip.MustParsePrefix("::ffff:0:0/96")
