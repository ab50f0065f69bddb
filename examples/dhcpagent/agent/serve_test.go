package agent

import (
	"net/netip"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
)

// TestServeSkipsMalformed sends Serve a datagram that is not a DHCPv4
// message, then a DISCOVER: the read loop goes on past the first and
// answers the second.
func TestServeSkipsMalformed(t *testing.T) {
	for _, conn := range loopbackConns {
		t.Run(conn.name, func(t *testing.T) {
			a := newAgent(t, benchPool(10), logr.Discard())
			c := serveLoopback(t, a, conn.listen(t))
			if _, err := c.conn.WriteToUDP([]byte("not dhcp"), c.server); err != nil {
				t.Fatal(err)
			}
			resp := c.exchange(dhcp4test.Discover(t, "52:54:00:00:00:01"))
			if resp == nil {
				t.Fatal("no OFFER after a malformed datagram")
			}
			if got, want := resp.YourIPAddr.String(), "10.77.1.1"; got != want {
				t.Errorf("OFFER yiaddr = %s, want %s", got, want)
			}
			if got := a.Stats(a.now()).Received; got != 1 {
				t.Errorf("Stats.Received = %d, want 1 (the malformed datagram is not a client message)", got)
			}
		})
	}
}

// TestClientPeer checks the peer Serve hands to Handle: a client without
// an address is the broadcast address on its own port, IPv4 comes
// unmapped, any other peer is passed on as it is.
func TestClientPeer(t *testing.T) {
	tests := []struct {
		name string
		peer netip.AddrPort
		want string
	}{
		{"unspecified IPv4", netip.MustParseAddrPort("0.0.0.0:68"), "255.255.255.255:68"},
		{"unspecified, mapped, other port", netip.MustParseAddrPort("[::ffff:0.0.0.0]:1068"), "255.255.255.255:1068"},
		{"no address", netip.AddrPortFrom(netip.Addr{}, 68), "255.255.255.255:68"},
		{"a relay", netip.MustParseAddrPort("10.77.0.3:67"), "10.77.0.3:67"},
		{"a relay, mapped", netip.MustParseAddrPort("[::ffff:10.77.0.3]:67"), "10.77.0.3:67"},
		{"a renewing client", netip.MustParseAddrPort("10.77.1.1:68"), "10.77.1.1:68"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, clientPeer(tt.peer).String()); diff != "" {
				t.Errorf("clientPeer(%v) (-want +got):\n%s", tt.peer, diff)
			}
		})
	}
}

// TestYielderDue: Serve yields at most once per yieldEvery, however many
// messages it handles in between.
func TestYielderDue(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	y := yielder{last: t0}
	steps := []struct {
		after time.Duration
		want  bool
	}{
		{time.Millisecond, false},
		{yieldEvery - time.Nanosecond, false},
		{yieldEvery, true},
		{yieldEvery + time.Millisecond, false}, // 1 ms after the last yield
		{3 * yieldEvery, true},
		{3 * yieldEvery, false}, // the same instant again
	}
	for _, s := range steps {
		if got := y.due(t0.Add(s.after)); got != s.want {
			t.Errorf("due at t0+%v = %v, want %v", s.after, got, s.want)
		}
	}
}
