package dhcp4wire

import (
	"encoding/binary"
	"math"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// LeaseOptions are the DHCPv4 options an OFFER or ACK of lease carries
// when the client accepts them all, in option-code order, exactly as the
// lease states them:
//
//   - 1 subnet mask, from the lease's prefix;
//   - 3 router, only when the lease has one;
//   - 6 domain name servers and 42 NTP servers, their IPv4 entries, when any;
//   - 15 domain name, when set, without a trailing dot;
//   - 51 lease time, in whole seconds rounded up (see [LeaseSeconds]);
//   - 54 server identifier;
//   - 58 renewal (T1) and 59 rebinding (T2) times, 1/2 and 7/8 of the lease
//     time (the RFC 2131 section 4.4.5 defaults, sent so that every client
//     uses the same ones), omitted for an infinite lease and for a
//     1-second one, whose T1 would be zero;
//   - 119 domain search list (RFC 3397), without trailing dots, when any.
//
// The names are sent as the table holds them: leasestore.Build has already
// dropped (and reported) any that is not a valid domain name. A reply that
// would exceed the client's limit keeps a part of them; see [Fit].
//
// It allocates a new slice on each call.
func LeaseOptions(lease leasestore.Lease) []dhcpv4.Option {
	mandatory, optional := leaseParts(lease)
	parts := append(mandatory, optional...)
	slices.SortFunc(parts, func(a, b Part) int { return int(a.Code) - int(b.Code) })
	opts := make([]dhcpv4.Option, len(parts))
	for i, p := range parts {
		opts[i] = dhcpv4.OptGeneric(dhcpv4.GenericOptionCode(p.Code), p.Data)
	}
	return opts
}

// leaseParts are the options of lease (see LeaseOptions) in the order in
// which a reply keeps them: the mandatory ones, 54 server identifier, 51
// lease time, 58 and 59 renewal and rebinding times, 1 subnet mask and 3
// router; then the optional ones, 6 name servers, 15 domain name, 42 NTP
// servers and 119 domain search, of which the lists may be cut short.
func leaseParts(lease leasestore.Lease) (mandatory, optional []Part) {
	o := lease.Options
	if o == nil {
		o = &leasestore.Options{}
	}
	// The mandatory options are 4 bytes each; they share one array.
	buf := make([]byte, 0, 6*4)
	mandatory = make([]Part, 0, 6)
	must := func(code uint8, v uint32) {
		buf = binary.BigEndian.AppendUint32(buf, v)
		p := Whole(code, buf[len(buf)-4:len(buf):len(buf)])
		p.Mandatory = true
		mandatory = append(mandatory, p)
	}
	addr := func(a netip.Addr) uint32 { a4 := a.As4(); return binary.BigEndian.Uint32(a4[:]) }
	if o.ServerIP.Is4() {
		must(dhcpv4.OptionServerIdentifier.Code(), addr(o.ServerIP))
	}
	secs := LeaseSeconds(o.LeaseTime)
	must(dhcpv4.OptionIPAddressLeaseTime.Code(), secs)
	if secs != math.MaxUint32 && secs >= 2 {
		t1, t2 := uint64(secs)/2, uint64(secs)*7/8
		must(dhcpv4.OptionRenewTimeValue.Code(), uint32(t1))
		must(dhcpv4.OptionRebindingTimeValue.Code(), uint32(t2))
	}
	if lease.Prefix.Addr().Is4() {
		must(dhcpv4.OptionSubnetMask.Code(), binary.BigEndian.Uint32(net.CIDRMask(lease.Prefix.Bits(), 32)))
	}
	if o.Router.Is4() {
		must(dhcpv4.OptionRouter.Code(), addr(o.Router))
	}

	optional = make([]Part, 0, 4)
	opt := func(p Part) {
		p.Overload = true
		optional = append(optional, p)
	}
	if dns := addrList(dhcpv4.OptionDomainNameServer.Code(), o.DNS); dns.n > 0 {
		opt(dns)
	}
	if name := strings.TrimSuffix(o.DomainName, "."); name != "" {
		opt(Whole(dhcpv4.OptionDomainName.Code(), []byte(name)))
	}
	if ntp := addrList(dhcpv4.OptionNTPServers.Code(), o.NTP); ntp.n > 0 {
		opt(ntp)
	}
	var search []string
	for _, name := range o.DomainSearch {
		if name = strings.TrimSuffix(name, "."); name != "" {
			search = append(search, name)
		}
	}
	if len(search) > 0 {
		opt(nameList(dhcpv4.OptionDNSDomainSearchList.Code(), search))
	}
	return mandatory, optional
}

// addrList is the list option code of the IPv4 entries of addrs, 4 bytes
// each; DHCPv4 options cannot carry others.
func addrList(code uint8, addrs []netip.Addr) Part {
	b := make([]byte, 0, 4*len(addrs))
	for _, a := range addrs {
		if a.Is4() {
			a4 := a.As4()
			b = append(b, a4[:]...)
		}
	}
	return Part{Code: code, Data: b, n: len(b) / 4, stride: 4}
}

// nameList is the list option code of names in RFC 1035 wire form
// (uncompressed, as RFC 3397 permits), cut between names. The names are
// valid domain names without a trailing dot, as leasestore keeps them.
func nameList(code uint8, names []string) Part {
	var b []byte
	ends := make([]int, 1, len(names)+1)
	for _, name := range names {
		for label := range strings.SplitSeq(name, ".") {
			b = append(append(b, byte(len(label))), label...)
		}
		b = append(b, 0)
		ends = append(ends, len(b))
	}
	return Part{Code: code, Data: b, n: len(names), ends: ends}
}

// DefaultLeaseTime is the lease time the agent serves when the table
// leaves it unset (zero), as leasestore.Options asks of an agent.
const DefaultLeaseTime = time.Hour

// LeaseSeconds is d as the 32-bit seconds of the lease time option: whole
// seconds rounded up, and 2^32-1 (infinite, RFC 2132) from 2^32-1 seconds
// up. Zero is DefaultLeaseTime; a negative d, which leasestore never holds,
// is 1 second rather than a wrapped-around huge value.
func LeaseSeconds(d time.Duration) uint32 {
	switch {
	case d == 0:
		d = DefaultLeaseTime
	case d >= math.MaxUint32*time.Second:
		return math.MaxUint32
	case d < time.Second:
		return 1
	}
	return uint32((d + time.Second - 1) / time.Second)
}
