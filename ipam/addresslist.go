package ipam

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"

	"github.com/vmnetkit/vmnetkit/internal/u128"
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
// "excludedAddresses[0]") and quoting its text as written: a value that
// does not parse (the forms of ParseRange, exactly: the text rule of
// ParseAddr; a prefix with host bits set is an error, not a wider range),
// an address of the other family, an address outside the subnet, a prefix
// length outside 0 to 32 (IPv4) or 0 to 128 (IPv6).
//
// It works on the entries as sorted and merged integer ranges, 32 bytes
// each, and builds error text only for a field that is bad: the number of
// its allocations does not grow with the number of entries.
func (l AddressList) Parse() (Spec, error) {
	var errs []error
	bad := func(field string, i int, value string, err error) {
		if i >= 0 {
			field += "[" + strconv.Itoa(i) + "]"
		}
		errs = append(errs, &FieldError{Field: field, Value: value, Err: err})
	}

	// The listed ranges as integers, index-aligned with at, their
	// indexes in l.Addresses.
	listed := make([]span, 0, len(l.Addresses))
	at := make([]int, 0, len(l.Addresses))
	fam := anyFamily // of the first address that parses
	var lowest u128.U128
	for i, s := range l.Addresses {
		r, err := parseRange(s, fam)
		if err != nil {
			bad("addresses", i, s, err)
			continue
		}
		f := addrFamily(r.From())
		if fam == anyFamily {
			fam = f
		} else if f != fam {
			bad("addresses", i, s, errFamily)
			continue
		}
		sp := span{u128.FromAddr(r.From()), u128.FromAddr(r.To())}
		if len(listed) == 0 || sp.lo.Less(lowest) {
			lowest = sp.lo
		}
		listed = append(listed, sp)
		at = append(at, i)
	}
	if len(l.Addresses) == 0 {
		bad("addresses", -1, "", errRequired)
	}
	is4 := fam == family4
	bits := 128
	if is4 {
		bits = 32
	}
	if l.Prefix < 0 || (len(listed) > 0 && l.Prefix > bits) || l.Prefix > 128 {
		bad("prefix", -1, strconv.Itoa(l.Prefix), fmt.Errorf("want 0 to %d", bits))
	}
	var gateway netip.Addr
	if l.Gateway != "" {
		a, err := parseAddr(l.Gateway, fam)
		switch {
		case err != nil:
			bad("gateway", -1, l.Gateway, err)
		case len(listed) > 0 && a.Is4() != is4:
			bad("gateway", -1, l.Gateway, errFamily)
		default:
			gateway = a
		}
	}
	var removed []span // what the pool does not hand out, of what is listed
	for i, s := range l.ExcludedAddresses {
		r, err := parseRange(s, fam)
		switch {
		case err != nil:
			bad("excludedAddresses", i, s, err)
		case len(listed) > 0 && r.From().Is4() != is4:
			bad("excludedAddresses", i, s, errFamily)
		default:
			removed = append(removed, span{u128.FromAddr(r.From()), u128.FromAddr(r.To())})
		}
	}
	if len(errs) > 0 {
		return Spec{}, errors.Join(errs...)
	}

	subnet := netip.PrefixFrom(lowest.Addr(is4), l.Prefix).Masked()
	subLo, subHi := u128.FromAddr(subnet.Addr()), u128.FromAddr(netipx.PrefixLastIP(subnet))
	for k, sp := range listed {
		if sp.lo.Less(subLo) || subHi.Less(sp.hi) {
			i := at[k]
			bad("addresses", i, l.Addresses[i], fmt.Errorf("outside subnet %s (the lowest address's /%d)", subnet, l.Prefix))
		}
	}
	if len(errs) > 0 {
		return Spec{}, errors.Join(errs...)
	}

	spec := Spec{Prefix: subnet, AllocateSubnetEnds: l.AllocateReservedIPAddresses}
	// What the pool may hand out: the listed addresses, less the excluded
	// ones, the gateway, and what no Spec of this subnet hands out (its
	// ends unless allocated, IPv4-mapped IPv6 addresses).
	lo, hi := subLo, subHi
	if !l.AllocateReservedIPAddresses {
		lo, hi = usableRange(subnet)
	}
	if gateway.IsValid() {
		g := u128.FromAddr(gateway)
		removed = append(removed, span{g, g})
	}
	if lo != subLo {
		removed = append(removed, span{subLo, subLo})
	}
	if hi != subHi {
		removed = append(removed, span{subHi, subHi})
	}
	mapped := span{mappedLo, mappedHi}
	if !is4 {
		removed = append(removed, mapped)
	}
	allowed := subtractSpans(mergeSpans(listed), mergeSpans(removed))

	if len(allowed) == 0 {
		// An empty pool: one address (lo is never IPv4-mapped: no subnet
		// of a listed address starts in or just before the mapped block),
		// excluded.
		a := lo.Addr(is4)
		spec.Start, spec.End = a, a
		spec.Exclude = []netipx.IPRange{netipx.IPRangeFrom(a, a)}
		return spec, spec.Validate()
	}
	first, last := allowed[0].lo, allowed[len(allowed)-1].hi
	spec.Start, spec.End = first.Addr(is4), last.Addr(is4)
	// The gaps between what is allowed, less the mapped block (never
	// usable, so never excluded).
	gaps := make([]span, 0, len(allowed)-1)
	for k := 1; k < len(allowed); k++ {
		gaps = append(gaps, span{allowed[k-1].hi.Add64(1), allowed[k].lo.Sub64(1)})
	}
	if !is4 {
		gaps = cutSpan(gaps, mapped)
	}
	spec.Exclude = make([]netipx.IPRange, len(gaps))
	for k, g := range gaps {
		spec.Exclude[k] = netipx.IPRangeFrom(g.lo.Addr(is4), g.hi.Addr(is4))
	}
	if gateway.IsValid() {
		if g := u128.FromAddr(gateway); !g.Less(first) && !last.Less(g) {
			spec.Reserved = []netip.Addr{gateway}
		}
	}
	return spec, spec.Validate()
}

// errFamily is the error of an AddressList value of the other family.
var errFamily = errors.New("not of the family of addresses[0]")

// subtractSpans returns the integers of a that are not in b; both are
// ascending and disjoint (as mergeSpans leaves them), and so is the result.
func subtractSpans(a, b []span) []span {
	out := make([]span, 0, len(a))
	j := 0
	for _, sp := range a {
		for j < len(b) && b[j].hi.Less(sp.lo) {
			j++
		}
		lo, whole := sp.lo, true
		for ; j < len(b) && !sp.hi.Less(b[j].lo); j++ {
			if lo.Less(b[j].lo) {
				out = append(out, span{lo, b[j].lo.Sub64(1)})
			}
			if !b[j].hi.Less(sp.hi) {
				whole = false // b[j] covers the rest, and may reach into the next span
				break
			}
			lo = b[j].hi.Add64(1)
		}
		if whole {
			out = append(out, span{lo, sp.hi})
		}
	}
	return out
}
