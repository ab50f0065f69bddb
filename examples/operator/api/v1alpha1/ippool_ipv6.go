package v1alpha1

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Errors of the dual-stack rules, wrapped in an ipam.FieldError (so they
// wrap ipam.ErrInvalidSpec too).
var (
	// errNotIPv4 is the error of spec.cidr in a dual-stack pool when it is
	// not an IPv4 prefix.
	errNotIPv4 = errors.New("not IPv4: with spec.ipv6 set, cidr is the pool's IPv4 part")
	// errNotIPv6 is the error of spec.ipv6.cidr when it is not an IPv6 prefix.
	errNotIPv6 = errors.New("not IPv6: spec.ipv6.cidr is the pool's IPv6 part")
	// errLifetimes: the preferred lifetime is longer than the valid one
	// (RFC 8415 section 21.6: a client discards such an address).
	errLifetimes = errors.New("longer than validLifetime")
)

// SpecText returns the IPv6 part's addresses in the core's text form, as
// IPPoolSpec.SpecText does for the IPv4 part; strategy is the pool's
// (IPPoolSpec.Strategy), which both parts share:
//
//	ipv6.cidr         CIDR
//	ipv6.rangeStart   Start
//	ipv6.rangeEnd     End
//	ipv6.exclude      Exclude
//	ipv6.reserved     Reserved
//	                  Owners "MAC"
//
// It checks nothing; empty lists are nil. A nil s has no SpecText (the
// zero value, which does not parse).
func (s *IPPoolIPv6Spec) SpecText(strategy string) ipam.SpecText {
	if s == nil {
		return ipam.SpecText{}
	}
	t := ipam.SpecText{
		CIDR:     s.CIDR,
		Start:    s.RangeStart,
		End:      s.RangeEnd,
		Strategy: strategy,
		Owners:   ipam.MACOwners.String(),
	}
	if len(s.Exclude) > 0 {
		t.Exclude = slices.Clone(s.Exclude)
	}
	if len(s.Reserved) > 0 {
		t.Reserved = slices.Clone(s.Reserved)
	}
	return t
}

// DualStack reports whether the pool has an IPv6 part (spec.ipv6).
func (s IPPoolSpec) DualStack() bool { return s.IPv6 != nil }

// ParseIPv6Spec returns the ipam.Spec of the pool's IPv6 part (spec.ipv6)
// and whether it has one. Each bad field is an ipam.FieldError named as the
// IPPool's spec names it, below ipv6: "ipv6.cidr", "ipv6.rangeStart",
// "ipv6.exclude[2]", "ipv6.reserved[0]"; ipv6.cidr must be an IPv6 prefix.
// The error wraps ipam.ErrInvalidSpec. There is no cap on the range's size:
// a /64, or wider, is a valid IPv6 part (the in-memory pool follows what
// is allocated, not the range).
func (s IPPoolSpec) ParseIPv6Spec() (ipam.Spec, bool, error) {
	if s.IPv6 == nil {
		return ipam.Spec{}, false, nil
	}
	spec, err := s.IPv6.SpecText(s.Strategy).Parse()
	errs := renameFields(err, "ipv6.", map[string]string{"start": "rangeStart", "end": "rangeEnd"})
	if p, perr := ipam.ParseRange(s.IPv6.CIDR); perr == nil && p.From().Is4() {
		errs = append([]error{&ipam.FieldError{Field: "ipv6.cidr", Value: s.IPv6.CIDR, Err: errNotIPv6}}, errs...)
	}
	return spec, true, errors.Join(errs...)
}

// Validate reports whether the operator can serve s: nil, or the
// errors.Join of one *ipam.FieldError per bad field (each wraps
// ipam.ErrInvalidSpec), the IPv4 part's first (ParseSpec), then the IPv6
// part's (ParseIPv6Spec), in field order. In a dual-stack pool, cidr must
// be an IPv4 prefix. The DHCP options of either family are not its
// concern: the DHCP agent checks them (the IPv6 part's with
// ParseOptions), drops a bad one and reports it, and serves the rest, so
// a typo in a DNS server never stops a pool from handing out addresses.
func (s IPPoolSpec) Validate() error {
	_, err4 := s.ParseSpec()
	errs := []error{err4}
	if s.IPv6 != nil {
		if p, err := ipam.ParseRange(s.CIDR); err == nil && !p.From().Is4() {
			errs = append(errs, &ipam.FieldError{Field: "cidr", Value: s.CIDR, Err: errNotIPv4})
		}
		_, _, err6 := s.ParseIPv6Spec()
		errs = append(errs, err6)
	}
	return errors.Join(errs...)
}

// IPv6Options are the DHCPv6 options of an IPv6 part, parsed: what a DHCPv6
// agent serves beside each address. It is not an API type.
//
// +kubebuilder:object:generate=false
type IPv6Options struct {
	DNS               []netip.Addr
	DomainSearch      []string
	PreferredLifetime time.Duration // zero: not set (the agent's default)
	ValidLifetime     time.Duration // zero: not set (the agent's default)
}

// ParseOptions returns the DHCPv6 options of s, checked by leasestore's
// rules for DHCP options (leasestore.Options.Validate, against ipv6.cidr's
// family): each dns entry an IPv6 address with no zone, each domainSearch
// entry a domain name, each lifetime zero (not set) or between one
// second and leasestore.MaxLeaseTime, and preferredLifetime not longer than
// validLifetime. Each bad value is an *ipam.FieldError ("ipv6.dns[1]",
// "ipv6.domainSearch[0]", "ipv6.preferredLifetime") and is left out of
// the result, which is usable whatever the error.
func (s *IPPoolIPv6Spec) ParseOptions() (IPv6Options, error) {
	var out IPv6Options
	if s == nil {
		return out, nil
	}
	var errs []error
	bad := func(field, value string, err error) {
		errs = append(errs, &ipam.FieldError{Field: "ipv6." + field, Value: value, Err: err})
	}
	// check runs leasestore's rule on one value: o holds that value alone.
	check := func(o leasestore.Options) error {
		return o.Validate(netip.PrefixFrom(netip.IPv6Unspecified(), 0)) // the family is what counts
	}
	for i, v := range s.DNS {
		field := fmt.Sprintf("dns[%d]", i)
		a, err := ipam.ParseAddr(v)
		if err == nil {
			err = check(leasestore.Options{DNS: []netip.Addr{a}})
		}
		if err != nil {
			bad(field, v, err)
			continue
		}
		out.DNS = append(out.DNS, a)
	}
	for i, d := range s.DomainSearch {
		if err := check(leasestore.Options{DomainSearch: []string{d}}); err != nil {
			bad(fmt.Sprintf("domainSearch[%d]", i), d, err)
			continue
		}
		out.DomainSearch = append(out.DomainSearch, d)
	}
	lifetime := func(field string, d *metav1.Duration) time.Duration {
		if d == nil {
			return 0
		}
		if err := check(leasestore.Options{LeaseTime: d.Duration}); err != nil {
			bad(field, d.Duration.String(), err)
			return 0
		}
		return d.Duration
	}
	out.PreferredLifetime = lifetime("preferredLifetime", s.PreferredLifetime)
	out.ValidLifetime = lifetime("validLifetime", s.ValidLifetime)
	if out.PreferredLifetime > 0 && out.ValidLifetime > 0 && out.PreferredLifetime > out.ValidLifetime {
		bad("preferredLifetime", out.PreferredLifetime.String(), fmt.Errorf("%w (%s)", errLifetimes, out.ValidLifetime))
		out.PreferredLifetime = 0
	}
	return out, errors.Join(errs...)
}

// renameFields returns the FieldErrors of err (ipam.SpecText.Parse's) with
// each field renamed by names, else kept, and prefixed with prefix.
func renameFields(err error, prefix string, names map[string]string) []error {
	var errs []error
	for _, fe := range ipam.FieldErrors(err) {
		renamed := *fe
		field, index, _ := strings.Cut(fe.Field, "[")
		if n, ok := names[field]; ok {
			field = n
		}
		if index != "" {
			field += "[" + index
		}
		renamed.Field = prefix + field
		errs = append(errs, &renamed)
	}
	return errs
}
