package agent

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/metrics"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// TestRespondBeforeLoad: an agent that has loaded no pool answers nobody.
func TestRespondBeforeLoad(t *testing.T) {
	if got, err := New(nil, WithLogger(quietLogger())).Respond(dhcp4test.Discover(t, dhcp4test.MACA)); !errors.Is(err, dhcp4.ErrNoTable) || got != nil {
		t.Fatalf("Respond before a load = %v, %v; want nil, ErrNoTable", got, err)
	}
}

// TestAuthoritativeNakEmptyTable checks that a MAC removed with the last
// lease is still NAKed: the prefix comes from the pool, not from a lease.
func TestAuthoritativeNakEmptyTable(t *testing.T) {
	a := newAgent(t, labtest.Pool(nil), quietLogger())
	got, err := a.Respond(dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(dhcp4test.NakView(dhcp4test.MACA, "10.77.0.10 is not leased to 52:54:00:aa:00:01"), dhcp4test.ViewOf(t, got)); diff != "" {
		t.Errorf("Respond (-want +got):\n%s", diff)
	}
}

// TestHandleDeclineAndRelease sends a DECLINE and a RELEASE through the
// handler: the decline holds the address for the probation period and no
// longer, each is logged at level 0 with the MAC and address, counted, and
// the decline reaches the hook.
func TestHandleDeclineAndRelease(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	logs := &logtest.Buffer{}
	var hooked []Decline
	a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), logtest.Logger(logs, 0),
		WithProbation(time.Minute), WithClock(func() time.Time { return now }),
		WithDeclineHook(func(d Decline) { hooked = append(hooked, d) }))
	conn := &recordingConn{}
	peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}

	a.Handle(conn, peer, dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA)) // the ACK after which a client probes and declines
	a.Handle(conn, peer, dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrA))
	a.Handle(conn, peer, dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrB)) // not its own: ignored
	a.Handle(conn, peer, dhcp4test.Discover(t, dhcp4test.MACA))
	now = now.Add(time.Minute - time.Second)
	a.Handle(conn, peer, dhcp4test.Discover(t, dhcp4test.MACA))
	now = now.Add(time.Second)
	a.Handle(conn, peer, dhcp4test.Discover(t, dhcp4test.MACA))
	a.Handle(conn, peer, dhcp4test.Message(t, dhcp4test.MACB, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrB))))

	if got := conn.types(); !cmp.Equal(got, []string{"ACK", "OFFER"}) {
		t.Errorf("sent %v, want the ACK, then one OFFER, after the probation", got)
	}
	wantHook := []Decline{{Pool: "default/lab", MAC: dhcp4test.MACA, Addr: dhcp4test.AddrA, Until: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)}}
	if diff := cmp.Diff(wantHook, hooked, cmpopts.EquateComparable(netip.Addr{})); diff != "" {
		t.Errorf("decline hook (-want +got):\n%s", diff)
	}
	want := metrics.Stats{Received: 7, Offers: 1, Acks: 1, Declines: 1, Releases: 1, Drops: 3, Loads: 1,
		Pool: "default/lab", Leases: 2, OnProbation: 0}
	if diff := cmp.Diff(want, a.Stats(now)); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	log := logs.String()
	for _, line := range []string{
		`"DECLINE: address on probation" pool="default/lab" mac="52:54:00:aa:00:01" addr="10.77.0.10" until="2026-01-01T00:01:00Z"`,
		`"RELEASE" pool="default/lab" mac="52:54:00:aa:00:02" addr="10.77.0.11"`,
	} {
		if !strings.Contains(log, line) {
			t.Errorf("log lacks %s:\n%s", line, log)
		}
	}
	if strings.Contains(log, `"OFFER"`) || strings.Contains(log, `"no reply"`) {
		t.Errorf("per-packet lines at level 0:\n%s", log)
	}
}

// recordingConn is a net.PacketConn that keeps every reply Handle sends,
// and refuses to send to the addresses in fail.
type recordingConn struct {
	net.PacketConn // nil: only WriteTo is called
	sent           []*dhcpv4.DHCPv4
	to             []string
	fail           map[string]bool
}

func (c *recordingConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	if c.fail[addr.String()] {
		return 0, errors.New("sendto: network is unreachable")
	}
	m, err := dhcpv4.FromBytes(b)
	if err != nil {
		return 0, err
	}
	c.sent, c.to = append(c.sent, m), append(c.to, addr.String())
	return len(b), nil
}

func (c *recordingConn) types() []string {
	var s []string
	for _, m := range c.sent {
		s = append(s, m.MessageType().String())
	}
	return s
}

// TestHandleNakDestination sends NAKs through the handler: to ciaddr when
// the client renews, by broadcast otherwise, and by broadcast when ciaddr
// cannot be reached.
func TestHandleNakDestination(t *testing.T) {
	a := newAgent(t, labtest.Pool(dhcp4test.MovedAllocated()), quietLogger())
	tests := []struct {
		name   string
		req    *dhcpv4.DHCPv4
		peer   string
		fail   []string
		wantTo []string
	}{
		{name: "renewing", req: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), peer: "10.77.0.10:68", wantTo: []string{"10.77.0.10:68"}},
		{name: "removed MAC renewing", req: dhcp4test.Renewing(t, dhcp4test.MACUnknown, dhcp4test.AddrA), peer: "10.77.0.10:68", wantTo: []string{"10.77.0.10:68"}},
		{name: "init-reboot", req: dhcp4test.InitReboot(t, dhcp4test.MACA, dhcp4test.AddrA), peer: "255.255.255.255:68", wantTo: []string{"255.255.255.255:68"}},
		{name: "relayed", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRequest, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA)), dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))),
			peer: "10.0.0.1:67", wantTo: []string{"10.0.0.1:67"}},
		{name: "ciaddr unreachable: broadcast", req: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), peer: "10.77.0.10:68", fail: []string{"10.77.0.10:68"},
			wantTo: []string{"255.255.255.255:68"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := &recordingConn{fail: map[string]bool{}}
			for _, f := range tt.fail {
				conn.fail[f] = true
			}
			a.Handle(conn, net.UDPAddrFromAddrPort(netip.MustParseAddrPort(tt.peer)), tt.req)
			if diff := cmp.Diff(tt.wantTo, conn.to); diff != "" {
				t.Errorf("sent to (-want +got):\n%s", diff)
			}
			if got := conn.types(); !cmp.Equal(got, []string{"NAK"}) {
				t.Errorf("sent %v, want one NAK", got)
			}
		})
	}
}
