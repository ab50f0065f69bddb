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

// Infinity is the lifetime DHCPv6 reads as "infinite" (RFC 8415 section
// 7.7): 0xffffffff seconds, MaxLeaseTime. Setting a lifetime to it is the
// explicit way to ask for an address that never expires.
const Infinity = MaxLeaseTime

// Options are the pool-wide DHCP options every lease of a Store carries.
// They hold addresses, never host names: the package does no name
// resolution, so an adapter that is configured with names resolves them
// before it calls Build.
//
// The zero value sets nothing. A zero Addr, an empty string and a zero
// duration mean "not set" (the agent's own default applies).
//
// One Options type serves both families: the family of the pool's prefix
// decides which fields apply. In an IPv6 pool, Router, NTP and DomainName
// have no DHCPv6 option to carry them (IPv6 routers send Router
// Advertisements, clients take the search list, and DHCPv6's NTP option is
// not served) and are invalid; in an IPv4 pool, PreferredLifetime and
// ValidLifetime are. A field set for the other family is dropped from the
// Store's copy and reported as a pool-wide Problem wrapping
// ErrInvalidOptions, so that an operator who writes a router into an IPv6
// pool learns that no client will ever receive it. LeaseTime is both
// families' lease time: in an IPv6 pool it is the valid lifetime unless
// ValidLifetime is set (see Lifetimes).
type Options struct {
	ServerIP     netip.Addr    // DHCPv4 server identifier; in an IPv6 pool the server's address (DHCPv6 identifies a server by its DUID)
	Router       netip.Addr    // default gateway; IPv4 pools only (IPv6 routers announce themselves in Router Advertisements)
	DNS          []netip.Addr  // name servers, in preference order; the pool's family (DHCPv4 option 6, DHCPv6 option 23)
	NTP          []netip.Addr  // time servers, in preference order; IPv4 pools only (option 42)
	DomainName   string        // e.g. "lab.example.com"; a trailing dot is allowed; IPv4 pools only (option 15)
	DomainSearch []string      // search list, each entry a domain name like DomainName (DHCPv4 option 119, DHCPv6 option 24)
	LeaseTime    time.Duration // zero, or between one second and MaxLeaseTime

	// PreferredLifetime and ValidLifetime are an IPv6 lease's lifetimes
	// (RFC 8415 section 21.6), IPv6 pools only: each zero (not set) or
	// between one second and Infinity, and the preferred lifetime no
	// longer than the valid lifetime that applies (see Lifetimes).
	PreferredLifetime time.Duration
	ValidLifetime     time.Duration
}

// Lifetimes returns the preferred and valid lifetimes of an IPv6 lease
// that o gives: the valid lifetime is ValidLifetime, or LeaseTime when it
// is not set; the preferred lifetime is PreferredLifetime, or the valid
// lifetime when it is not set. Zero means not set (the agent's default
// applies). A nil o sets neither. It does not allocate.
func (o *Options) Lifetimes() (preferred, valid time.Duration) {
	if o == nil {
		return 0, 0
	}
	valid = o.ValidLifetime
	if valid == 0 {
		valid = o.LeaseTime
	}
	preferred = o.PreferredLifetime
	if preferred == 0 {
		preferred = valid
	}
	return preferred, valid
}

// Validate reports whether o can be served by a pool in prefix: nil, or
// the errors.Join of one error per invalid field, each wrapping
// ErrInvalidOptions and quoting the value. A set ServerIP or Router, and
// every DNS and NTP entry, must be a valid address of prefix's family
// without a zone; LeaseTime, PreferredLifetime and ValidLifetime must be
// zero or between one second and MaxLeaseTime, and the preferred lifetime
// no longer than the valid one (Lifetimes); Router, NTP and DomainName
// must not be set for an IPv6 prefix, PreferredLifetime and ValidLifetime
// not for an IPv4 prefix; DomainName and each DomainSearch entry must be a domain
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
		o.LeaseTime == p.LeaseTime &&
		o.PreferredLifetime == p.PreferredLifetime && o.ValidLifetime == p.ValidLifetime
}

// sanitize returns a private copy of o without its invalid values (an
// invalid address or name is dropped, an invalid lease time or lifetime
// becomes zero), and one error per value it dropped, or per field of the
// other family that is set. A nil o is the zero Options.
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
	switch {
	case o.Router.IsValid() && !is4:
		bad("router %s: DHCPv6 has no router option (IPv6 routers send Router Advertisements)", errtext.Quote(o.Router.String()))
	case o.Router.IsValid() && addrOK("router", o.Router):
		out.Router = o.Router
	}
	for _, a := range o.DNS {
		if addrOK("DNS server", a) {
			out.DNS = append(out.DNS, a)
		}
	}
	if len(o.NTP) > 0 && !is4 {
		bad("%d NTP servers: NTP servers are served to IPv4 pools only", len(o.NTP))
	}
	for _, a := range o.NTP {
		if is4 && addrOK("NTP server", a) {
			out.NTP = append(out.NTP, a)
		}
	}
	if o.DomainName != "" {
		switch err := checkDomain(o.DomainName); {
		case !is4:
			bad("domain name %s: DHCPv6 has no domain name option (use the search list)", errtext.Quote(o.DomainName))
		case err != nil:
			bad("domain name %s: %v", errtext.Quote(o.DomainName), err)
		default:
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
	duration := func(what string, t time.Duration) time.Duration {
		switch {
		case t == 0:
		case t < time.Second:
			bad("%s %s is shorter than one second", what, t)
		case t > MaxLeaseTime:
			bad("%s %s is longer than %d seconds, the most DHCP can carry", what, t, MaxLeaseTime/time.Second)
		default:
			return t
		}
		return 0
	}
	out.LeaseTime = duration("lease time", o.LeaseTime)
	if is4 {
		if o.PreferredLifetime != 0 || o.ValidLifetime != 0 {
			bad("preferred lifetime %s, valid lifetime %s: lifetimes are served to IPv6 pools only", o.PreferredLifetime, o.ValidLifetime)
		}
		return out, errs
	}
	out.ValidLifetime = duration("valid lifetime", o.ValidLifetime)
	out.PreferredLifetime = duration("preferred lifetime", o.PreferredLifetime)
	if _, valid := out.Lifetimes(); out.PreferredLifetime != 0 && valid != 0 && out.PreferredLifetime > valid {
		bad("preferred lifetime %s is longer than the valid lifetime %s", out.PreferredLifetime, valid)
		out.PreferredLifetime = 0
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
