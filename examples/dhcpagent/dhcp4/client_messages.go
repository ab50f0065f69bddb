package dhcp4

import (
	"fmt"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// Declined checks a DECLINE (RFC 2131 section 4.3.3) against t and returns
// the lease it declines: the message names this server or a peer (option
// 54, when present) and, in option 50, the address the table gives to the client's
// MAC. Anything else is an error, and the agent puts nothing on probation:
// a client may only decline its own address, so that no client can take
// another's address out of service. Like ReplyTo it is pure.
func Declined(req *dhcpv4.DHCPv4, t Table) (leasestore.Lease, error) {
	return ownLease(req, t, dhcpv4.MessageTypeDecline, ipv4(req.RequestedIPAddress()))
}

// Released checks a RELEASE (RFC 2131 section 4.3.4) against t and returns
// the lease it releases: ciaddr must be the address the table gives to
// the client's MAC. The agent only logs and counts a release; the table,
// which the pool's owner writes, says who holds which address.
func Released(req *dhcpv4.DHCPv4, t Table) (leasestore.Lease, error) {
	return ownLease(req, t, dhcpv4.MessageTypeRelease, ipv4(req.ClientIPAddr))
}

func ownLease(req *dhcpv4.DHCPv4, t Table, typ dhcpv4.MessageType, addr netip.Addr) (leasestore.Lease, error) {
	mac, err := client(req, t)
	if err != nil {
		return leasestore.Lease{}, err
	}
	if got := req.MessageType(); got != typ {
		return leasestore.Lease{}, fmt.Errorf("%w: %s from %s, want %s", ErrMessageType, got, mac, typ)
	}
	if sid := ipv4(req.ServerIdentifier()); sid.IsValid() && !t.names(sid) {
		return leasestore.Lease{}, fmt.Errorf("%w: %s from %s names %s", ErrOtherServer, typ, mac, sid)
	}
	lease, ok := t.Leases.Lookup(mac)
	if !ok {
		return leasestore.Lease{}, fmt.Errorf("%w: %s from %s for %s", ErrUnknownClient, typ, mac, addr)
	}
	if addr != lease.Addr {
		return leasestore.Lease{}, fmt.Errorf("%w: %s from %s for %s, leased %s", ErrNotLeased, typ, mac, addr, lease.Addr)
	}
	return lease, nil
}
