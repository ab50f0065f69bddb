package agent

import (
	"math"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/rfc1035label"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// LeaseOptions are the DHCPv4 options an OFFER or ACK of lease carries, in
// option-code order, exactly as the lease states them:
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
// dropped (and reported) any that is not a valid domain name.
//
// It allocates a new slice on each call.
func LeaseOptions(lease leasestore.Lease) []dhcpv4.Option {
	o := lease.Options
	if o == nil {
		o = &leasestore.Options{}
	}
	var opts []dhcpv4.Option
	if lease.Prefix.Addr().Is4() {
		opts = append(opts, dhcpv4.OptSubnetMask(net.CIDRMask(lease.Prefix.Bits(), 32)))
	}
	if o.Router.Is4() {
		opts = append(opts, dhcpv4.OptRouter(netIP(o.Router)))
	}
	if dns := netIPs(o.DNS); len(dns) > 0 {
		opts = append(opts, dhcpv4.OptDNS(dns...))
	}
	if name := strings.TrimSuffix(o.DomainName, "."); name != "" {
		opts = append(opts, dhcpv4.OptDomainName(name))
	}
	if ntp := netIPs(o.NTP); len(ntp) > 0 {
		opts = append(opts, dhcpv4.OptNTPServers(ntp...))
	}
	secs := LeaseSeconds(o.LeaseTime)
	opts = append(opts, dhcpv4.OptIPAddressLeaseTime(time.Duration(secs)*time.Second))
	if o.ServerIP.Is4() {
		opts = append(opts, dhcpv4.OptServerIdentifier(netIP(o.ServerIP)))
	}
	if secs != math.MaxUint32 && secs >= 2 {
		t1, t2 := uint64(secs)/2, uint64(secs)*7/8
		opts = append(opts,
			dhcpv4.OptRenewTimeValue(time.Duration(t1)*time.Second),
			dhcpv4.OptRebindingTimeValue(time.Duration(t2)*time.Second))
	}
	var search []string
	for _, name := range o.DomainSearch {
		if name = strings.TrimSuffix(name, "."); name != "" {
			search = append(search, name)
		}
	}
	if len(search) > 0 {
		opts = append(opts, dhcpv4.OptDomainSearch(&rfc1035label.Labels{Labels: search}))
	}
	return opts
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

// serverID is the lease's server identifier, or the zero Addr.
func serverID(lease leasestore.Lease) netip.Addr {
	if lease.Options == nil {
		return netip.Addr{}
	}
	return lease.Options.ServerIP
}

func netIP(a netip.Addr) net.IP { return net.IP(a.AsSlice()) }

// netIPs keeps the IPv4 entries of addrs; DHCPv4 options cannot carry others.
func netIPs(addrs []netip.Addr) []net.IP {
	var ips []net.IP
	for _, a := range addrs {
		if a.Is4() {
			ips = append(ips, netIP(a))
		}
	}
	return ips
}
