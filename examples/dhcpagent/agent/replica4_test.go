package agent

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
)

// TestTwoAgents drives two agents of one pool, each with its own server
// identifier and the other as its peer, with the same messages, as a
// broadcast reaches both: both offer the client its one address; the
// REQUEST selecting one's offer is ACKed by that one only; a DECLINE
// after it, naming either, holds the address on both; a DECLINE with no
// binding before it (a spoof) holds it on neither, and neither do
// DECLINEs naming a server that is no peer; a REBIND (no server named)
// is ACKed by both, with the same address.
func TestTwoAgents(t *testing.T) {
	idA, idB := netip.MustParseAddr("10.77.0.3"), netip.MustParseAddr("10.77.0.4")
	stranger := netip.MustParseAddr("10.77.0.9")
	type step struct {
		at  time.Duration
		msg func(t *testing.T) *dhcpv4.DHCPv4
	}
	selecting := func(sid netip.Addr) step {
		return step{0, func(t *testing.T) *dhcpv4.DHCPv4 {
			return dhcp4test.Selecting(t, dhcp4test.MACA, sid, dhcp4test.AddrA)
		}}
	}
	decline := func(at time.Duration, sid netip.Addr) step {
		return step{at, func(t *testing.T) *dhcpv4.DHCPv4 {
			return dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDecline,
				dhcpv4.WithOption(dhcpv4.OptServerIdentifier(dhcp4test.NetIP(sid))),
				dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(dhcp4test.NetIP(dhcp4test.AddrA))))
		}}
	}
	discover := step{0, func(t *testing.T) *dhcpv4.DHCPv4 { return dhcp4test.Discover(t, dhcp4test.MACA) }}
	rebind := step{0, func(t *testing.T) *dhcpv4.DHCPv4 { return dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA) }}
	tests := []struct {
		name          string
		steps         []step
		wantA, wantB  []string
		heldA, heldB  bool
		declinesA, dB uint64
	}{
		{name: "both offer; the selected one ACKs", steps: []step{discover, selecting(idA)},
			wantA: []string{"OFFER/10.77.0.3", "ACK/10.77.0.3"}, wantB: []string{"OFFER/10.77.0.4"}},
		{name: "a genuine DECLINE naming the one that ACKed holds it on both", steps: []step{discover, selecting(idA), decline(2*time.Second, idA)},
			wantA: []string{"OFFER/10.77.0.3", "ACK/10.77.0.3"}, wantB: []string{"OFFER/10.77.0.4"}, heldA: true, heldB: true, declinesA: 1, dB: 1},
		{name: "a genuine DECLINE naming the other holds it on both", steps: []step{selecting(idB), decline(2*time.Second, idB)},
			wantB: []string{"ACK/10.77.0.4"}, heldA: true, heldB: true, declinesA: 1, dB: 1},
		{name: "a spoofed DECLINE holds it on neither", steps: []step{decline(0, idA), decline(0, idB)}},
		{name: "a DECLINE after the window holds it on neither", steps: []step{selecting(idA), decline(2*time.Minute, idA)},
			wantA: []string{"ACK/10.77.0.3"}},
		{name: "a DECLINE naming a stranger holds it on neither", steps: []step{selecting(idA), decline(time.Second, stranger)},
			wantA: []string{"ACK/10.77.0.3"}},
		{name: "a REQUEST selecting a stranger is left to it", steps: []step{selecting(stranger)}},
		{name: "a rebinding client is ACKed by both, with its address", steps: []step{rebind},
			wantA: []string{"ACK/10.77.0.3"}, wantB: []string{"ACK/10.77.0.4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := t0
			clock := WithClock(func() time.Time { return now })
			pool := labtest.Pool(dhcp4test.LabAllocated())
			a := newAgent(t, pool, quietLogger(), clock, WithServerID4(idA), WithPeers4([]netip.Prefix{netip.PrefixFrom(idB, 32)}))
			b := newAgent(t, pool, quietLogger(), clock, WithServerID4(idB), WithPeers4([]netip.Prefix{netip.MustParsePrefix("10.77.0.0/29")}))
			connA, connB := &recordingConn{}, &recordingConn{}
			peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}
			for _, s := range tt.steps {
				now = now.Add(s.at)
				m := s.msg(t)
				a.Handle(connA, peer, m)
				b.Handle(connB, peer, m)
			}
			if diff := cmp.Diff(tt.wantA, replies(t, connA)); diff != "" {
				t.Errorf("agent A's replies (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantB, replies(t, connB)); diff != "" {
				t.Errorf("agent B's replies (-want +got):\n%s", diff)
			}
			for _, x := range []struct {
				name     string
				a        *Agent
				held     bool
				declines uint64
			}{{"A", a, tt.heldA, tt.declinesA}, {"B", b, tt.heldB, tt.dB}} {
				if _, held := x.a.Probation().Holds(dhcp4test.AddrA, now); held != x.held {
					t.Errorf("agent %s holds %s: %v, want %v", x.name, dhcp4test.AddrA, held, x.held)
				}
				if got := x.a.Stats(now).Declines; got != x.declines {
					t.Errorf("agent %s accepted %d declines, want %d", x.name, got, x.declines)
				}
			}
		})
	}
}

// replies are the message types of the replies conn recorded, each with
// its server identifier, and each for the client's one address.
func replies(t *testing.T, conn *recordingConn) []string {
	t.Helper()
	var out []string
	for _, m := range conn.sent {
		if m.MessageType() != dhcpv4.MessageTypeNak && !m.YourIPAddr.Equal(dhcp4test.NetIP(dhcp4test.AddrA)) {
			t.Errorf("%s for %s, want %s", m.MessageType(), m.YourIPAddr, dhcp4test.AddrA)
		}
		out = append(out, m.MessageType().String()+"/"+m.ServerIdentifier().String())
	}
	return out
}
