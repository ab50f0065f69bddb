package e2e

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"golang.org/x/sys/unix"
)

// probe is a host on the segment that speaks DHCPv4 by hand, as a
// client that declines (or a host that forges a DECLINE) does.
type probe struct {
	s    *system
	h    host
	conn *net.UDPConn
}

// newProbe attaches a host with MAC mac and opens its client socket
// (0.0.0.0:68 on its interface, broadcasts allowed).
func (s *system) newProbe(name, mac string) *probe {
	s.t.Helper()
	p := &probe{s: s, h: s.seg.attach(name, mac)}
	err := netnstest.In(p.h.NS, func() error {
		lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) {
				if serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_BROADCAST, 1); serr == nil {
					serr = unix.BindToDevice(int(fd), p.h.Iface)
				}
			})
			if err != nil {
				return err
			}
			return serr
		}}
		c, err := lc.ListenPacket(context.Background(), "udp4", "0.0.0.0:68")
		if err != nil {
			return err
		}
		p.conn = c.(*net.UDPConn)
		return nil
	})
	if err != nil {
		s.t.Fatalf("probe socket in %s: %v", p.h.NS, err)
	}
	s.t.Cleanup(func() { p.conn.Close() })
	return p
}

// send broadcasts m to the servers.
func (p *probe) send(m *dhcpv4.DHCPv4) {
	p.s.t.Helper()
	if _, err := p.conn.WriteToUDP(m.ToBytes(), &net.UDPAddr{IP: net.IPv4bcast, Port: 67}); err != nil {
		p.s.t.Fatalf("probe: send %s: %v", m.MessageType(), err)
	}
}

// replies reads the replies to xid for d.
func (p *probe) replies(xid dhcpv4.TransactionID, d time.Duration) []*dhcpv4.DHCPv4 {
	var out []*dhcpv4.DHCPv4
	buf := make([]byte, 1500)
	p.conn.SetReadDeadline(time.Now().Add(d))
	for {
		n, _, err := p.conn.ReadFromUDP(buf)
		if err != nil {
			return out
		}
		if m, err := dhcpv4.FromBytes(buf[:n]); err == nil && m.TransactionID == xid {
			out = append(out, m)
		}
	}
}

var declinesTotal = regexp.MustCompile(`(?m)^dhcpagent_declines_total (\d+)`)

// declines are the DECLINEs each agent accepted so far (its metrics).
func (s *system) declines() []int {
	var n []int
	for _, a := range s.agents {
		v := -1
		if m := declinesTotal.FindStringSubmatch(a.metrics()); m != nil {
			v, _ = strconv.Atoi(m[1])
		}
		n = append(n, v)
	}
	return n
}

// declines runs the two DECLINEs of the two-agent setup: a genuine one
// (the probe, with the MAC of a config no client serves, binds its
// address through DISCOVER, the two agents' OFFERs and a REQUEST
// selecting one, then declines it at once: both agents must take the
// address out of service) and a forged one (the probe declines, in the
// name of a client bound long ago and renewing, that client's address:
// neither agent may accept it, and the client keeps its address).
func (s *system) declineGenuineAndSpoofed() func(*caseCounts) {
	return func(c *caseCounts) {
		mac := burstConfig(1).Spec.NICs[0].MAC
		p := s.newProbe("probe", mac)
		hw, _ := net.ParseMAC(mac)
		d, err := dhcpv4.NewDiscovery(hw, dhcpv4.WithBroadcast(true))
		if err != nil {
			s.t.Fatal(err)
		}
		p.send(d)
		offers := p.replies(d.TransactionID, 2*time.Second)
		if len(offers) != len(s.agents) {
			s.t.Fatalf("probe: %d OFFERs to its DISCOVER, want one from each of %d agents", len(offers), len(s.agents))
		}
		r, err := dhcpv4.NewRequestFromOffer(offers[0], dhcpv4.WithBroadcast(true))
		if err != nil {
			s.t.Fatal(err)
		}
		p.send(r)
		acks := p.replies(r.TransactionID, 2*time.Second)
		if len(acks) != 1 || acks[0].MessageType() != dhcpv4.MessageTypeAck || !acks[0].ServerIdentifier().Equal(offers[0].ServerIdentifier()) {
			s.t.Fatalf("probe: replies %v to a REQUEST selecting %s, want one ACK from it", acks, offers[0].ServerIdentifier())
		}
		before := s.declines()
		decline := func(mac net.HardwareAddr, addr, server net.IP) {
			m, err := dhcpv4.New(dhcpv4.WithMessageType(dhcpv4.MessageTypeDecline), dhcpv4.WithHwAddr(mac),
				dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(addr)), dhcpv4.WithOption(dhcpv4.OptServerIdentifier(server)))
			if err != nil {
				s.t.Fatal(err)
			}
			p.send(m)
			time.Sleep(500 * time.Millisecond)
		}
		decline(hw, acks[0].YourIPAddr, acks[0].ServerIdentifier())
		genuine := s.declines()
		for i, a := range s.agents {
			if genuine[i] != before[i]+1 {
				s.t.Errorf("genuine DECLINE of %s: %s accepted %d, want 1 (both agents take it out of service)", acks[0].YourIPAddr, a.name, genuine[i]-before[i])
			}
		}
		// The forged one: in the name of a client bound at the start.
		victim := s.client("dhclient")
		var server string
		for _, q := range victim.wire.replies(time.Time{}, time.Now()) {
			if q.typ == "ACK" {
				server = q.serverID
			}
		}
		vhw, _ := net.ParseMAC(victim.h.MAC)
		decline(vhw, net.IP(victim.want().AsSlice()), net.ParseIP(server))
		spoofed := s.declines()
		for i, a := range s.agents {
			if spoofed[i] != genuine[i] {
				s.t.Errorf("forged DECLINE of %s (%s's, bound long ago): %s accepted %d, want none", victim.want(), victim.name(), a.name, spoofed[i]-genuine[i])
			}
		}
		c.measureWhat = fmt.Sprintf("DECLINEs accepted, genuine %v, forged %v, by agent", diff(genuine, before), diff(spoofed, genuine))
	}
}

func diff(a, b []int) []int {
	d := make([]int, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}
