package leasestore

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/vmnetkit/vmnetkit/internal/errtext"
)

// ErrInvalidOptions is wrapped by every error of Options.Validate and by
// the Problems Build reports for a pool-wide option it had to drop.
var ErrInvalidOptions = errors.New("invalid DHCP options")

// MaxLeaseTime is the longest lease time DHCP can carry: 2^32-1 seconds,
// which DHCPv4 (RFC 2131) and DHCPv6 (RFC 8415) read as "infinite".
const MaxLeaseTime = (1<<32 - 1) * time.Second

// Options are the pool-wide DHCP options every lease of a Store carries.
// They hold addresses, never host names: the package does no name
// resolution, so an adapter that is configured with names resolves them
// before it calls Build.
//
// The zero value sets nothing. A zero Addr, an empty string and a zero
// LeaseTime mean "not set" (the agent's own default applies).
type Options struct {
	ServerIP     netip.Addr    // server identifier; the pool's family
	Router       netip.Addr    // default gateway; the pool's family
	DNS          []netip.Addr  // name servers, in preference order; the pool's family
	NTP          []netip.Addr  // time servers, in preference order; the pool's family
	DomainName   string        // e.g. "lab.example.com"; a trailing dot is allowed
	DomainSearch []string      // search list, each entry a domain name like DomainName
	LeaseTime    time.Duration // zero, or between one second and MaxLeaseTime
}

// Validate reports whether o can be served by a pool in prefix: nil, or
// the errors.Join of one error per invalid field, each wrapping
// ErrInvalidOptions and quoting the value. A set ServerIP or Router, and
// every DNS and NTP entry, must be a valid address of prefix's family
// without a zone; LeaseTime must be zero or between one second and
// MaxLeaseTime; DomainName and each DomainSearch entry must be a domain
// name of letter, digit and hyphen labels (1 to 63 bytes, no hyphen at
// either end, 253 bytes in all). A nil o is the zero Options.
func (o *Options) Validate(prefix netip.Prefix) error {
	if !prefix.IsValid() {
		return fmt.Errorf("leasestore: options: prefix %q is not valid: %w", prefix.String(), ErrInvalidOptions)
	}
	_, errs := o.sanitize(prefix.Addr().Is4())
	return errors.Join(errs...)
}

// Equal reports whether o and p hold the same options, field by field and
// in the same order. A nil Options equals the zero Options. Diff uses it
// to tell whether leases must be updated.
func (o *Options) Equal(p *Options) bool {
	if o == p {
		return true
	}
	var zero Options
	if o == nil {
		o = &zero
	}
	if p == nil {
		p = &zero
	}
	return o.ServerIP == p.ServerIP && o.Router == p.Router &&
		slices.Equal(o.DNS, p.DNS) && slices.Equal(o.NTP, p.NTP) &&
		o.DomainName == p.DomainName && slices.Equal(o.DomainSearch, p.DomainSearch) &&
		o.LeaseTime == p.LeaseTime
}

// sanitize returns a private copy of o without its invalid values (an
// invalid address or name is dropped, an invalid lease time becomes
// zero), and one error per value it dropped. A nil o is the zero Options.
func (o *Options) sanitize(is4 bool) (Options, []error) {
	var out Options
	if o == nil {
		return out, nil
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("leasestore: options: "+format+": %w", append(args, ErrInvalidOptions)...))
	}
	family := "IPv6"
	if is4 {
		family = "IPv4"
	}
	addrOK := func(what string, a netip.Addr) bool {
		switch {
		case !a.IsValid():
			bad("%s %s is not a valid address", what, errtext.Quote(a.String()))
		case a.Zone() != "":
			bad("%s %s has a zone", what, errtext.Quote(a.String()))
		case a.Is4() != is4:
			bad("%s %s is not an %s address", what, errtext.Quote(a.String()), family)
		default:
			return true
		}
		return false
	}
	if o.ServerIP.IsValid() && addrOK("server", o.ServerIP) {
		out.ServerIP = o.ServerIP
	}
	if o.Router.IsValid() && addrOK("router", o.Router) {
		out.Router = o.Router
	}
	for _, a := range o.DNS {
		if addrOK("DNS server", a) {
			out.DNS = append(out.DNS, a)
		}
	}
	for _, a := range o.NTP {
		if addrOK("NTP server", a) {
			out.NTP = append(out.NTP, a)
		}
	}
	if o.DomainName != "" {
		if err := checkDomain(o.DomainName); err != nil {
			bad("domain name %s: %v", errtext.Quote(o.DomainName), err)
		} else {
			out.DomainName = o.DomainName
		}
	}
	for _, d := range o.DomainSearch {
		if err := checkDomain(d); err != nil {
			bad("search domain %s: %v", errtext.Quote(d), err)
		} else {
			out.DomainSearch = append(out.DomainSearch, d)
		}
	}
	switch t := o.LeaseTime; {
	case t == 0:
	case t < time.Second:
		bad("lease time %s is shorter than one second", t)
	case t > MaxLeaseTime:
		bad("lease time %s is longer than %d seconds, the most DHCP can carry", t, MaxLeaseTime/time.Second)
	default:
		out.LeaseTime = t
	}
	return out, errs
}

// checkDomain reports why name is not a domain name of letter-digit-hyphen
// labels (RFC 1123 section 2.1), or nil.
func checkDomain(name string) error {
	n := name
	if len(n) > 1 && n[len(n)-1] == '.' {
		n = n[:len(n)-1]
	}
	if len(n) > 253 {
		return fmt.Errorf("%d bytes, more than 253", len(n))
	}
	start := 0
	for i := 0; i <= len(n); i++ {
		if i < len(n) && n[i] != '.' {
			c := n[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return fmt.Errorf("invalid character %q at offset %d", c, i)
			}
			continue
		}
		label := n[start:i]
		switch {
		case label == "":
			return fmt.Errorf("empty label at offset %d", start)
		case len(label) > 63:
			return fmt.Errorf("label at offset %d is %d bytes, more than 63", start, len(label))
		case label[0] == '-' || label[len(label)-1] == '-':
			return fmt.Errorf("label %q starts or ends with a hyphen", label)
		}
		start = i + 1
	}
	return nil
}
