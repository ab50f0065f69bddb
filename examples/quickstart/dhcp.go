package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/agent"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// dhcpSection loads the pool of the ipam section into the DHCP agent, as
// the IPPool object the agent reads from its file, runs the agent's packet
// handler in-process on one DISCOVER, and prints the OFFER it puts on the
// wire.
func dhcpSection(w io.Writer) error {
	pool, err := labPool(3)
	if err != nil {
		return err
	}
	// The IPPool's spec spells labSpec as a custom resource does
	// (ipam.Spec.Text); its router, reserved, is the DHCP server too. Its
	// status is the pool's snapshot in the status-map form.
	text := pool.Spec().Text()
	obj := &poolsource.Pool{
		Metadata: poolsource.ObjectMeta{Name: "lab", Namespace: "default"},
		Spec: poolsource.PoolSpec{
			IPPoolSpec: v1alpha1.IPPoolSpec{
				CIDR: text.CIDR, RangeStart: text.Start, RangeEnd: text.End, Exclude: text.Exclude,
				ServerIP: text.Reserved[0], Router: text.Reserved[0],
				DNS: []string{"192.168.10.1"}, Domain: "lab.example",
			},
			LeaseTime: poolsource.Duration(time.Hour),
		},
		Status: poolsource.PoolStatus{Allocated: ipam.FormatAllocated(pool.Snapshot())},
	}
	a := agent.New(slog.New(slog.DiscardHandler))
	u, err := a.Apply(obj)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "agent loads pool %s: %d leases (%d adds), %d problems\n", u.Pool, u.Leases, len(u.Plan.Add), len(u.Problems))

	for _, s := range []string{"52:54:00:aa:bb:02", "52:54:00:ff:ff:ff"} {
		mac, _ := net.ParseMAC(s)
		discover, err := dhcpv4.NewDiscovery(mac, dhcpv4.WithTransactionID(dhcpv4.TransactionID{0, 0, 0, 1}))
		if err != nil {
			return err
		}
		// The handler the agent's UDP server calls, on a socket that keeps
		// what is sent; the client sent from 0.0.0.0, seen as broadcast.
		conn := &sentPackets{}
		a.Handle(conn, &net.UDPAddr{IP: net.IPv4bcast, Port: 68}, discover)
		if len(conn.sent) == 0 {
			_, why := a.Respond(discover)
			fmt.Fprintf(w, "DISCOVER from %s: no reply (%v)\n", s, why)
			continue
		}
		offer, err := dhcpv4.FromBytes(conn.sent)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "DISCOVER from %s -> %s, a %d-byte packet to %s:\n", s, offer.MessageType(), len(conn.sent), conn.to)
		fmt.Fprintf(w, "  yiaddr %s, server id %s, mask %s, router %s\n",
			offer.YourIPAddr, offer.ServerIdentifier(), net.IP(offer.SubnetMask()), join(offer.Router()))
		fmt.Fprintf(w, "  dns %s, domain %s, lease time %s (renew at %s, rebind at %s)\n",
			join(offer.DNS()), offer.DomainName(), offer.IPAddressLeaseTime(0),
			offer.IPAddressRenewalTime(0), offer.IPAddressRebindingTime(0))
	}
	return nil
}

// sentPackets is a net.PacketConn that keeps the last packet written.
type sentPackets struct {
	net.PacketConn
	sent []byte
	to   net.Addr
}

func (c *sentPackets) WriteTo(b []byte, addr net.Addr) (int, error) {
	c.sent, c.to = append([]byte(nil), b...), addr
	return len(b), nil
}

func join(ips []net.IP) string {
	s := make([]string, len(ips))
	for i, ip := range ips {
		s[i] = ip.String()
	}
	return strings.Join(s, ",")
}
