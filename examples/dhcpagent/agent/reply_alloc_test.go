package agent

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// replyAllocCases are the steady-state answers of the agent: the OFFER
// and ACKs every client gets, relayed or not, with echoed options, and
// the NAKs.
func replyAllocCases(t testing.TB) []struct {
	name string
	req  *dhcpv4.DHCPv4
	want dhcpv4.MessageType
} {
	relayed := dhcp4test.Discover(t, dhcp4test.MACA)
	relayed.GatewayIPAddr = net.IPv4(10, 77, 0, 3).To4()
	relayed.Options[dhcp4wire.OptionRelayInfo] = []byte{1, 4, 'e', 't', 'h', '0'}
	relayed.Options[dhcpv4.OptionClientIdentifier.Code()] = []byte{1, 0x52, 0x54, 0, 0xaa, 0, 1}
	return []struct {
		name string
		req  *dhcpv4.DHCPv4
		want dhcpv4.MessageType
	}{
		{"DISCOVER-OFFER", dhcp4test.Discover(t, dhcp4test.MACA), dhcpv4.MessageTypeOffer},
		{"relayed DISCOVER-OFFER with echoes", relayed, dhcpv4.MessageTypeOffer},
		{"selecting REQUEST-ACK", dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA), dhcpv4.MessageTypeAck},
		{"renewing REQUEST-ACK", dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), dhcpv4.MessageTypeAck},
		{"INFORM-ACK", dhcp4test.Message(t, dhcp4test.MACB, dhcpv4.MessageTypeInform, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrB))), dhcpv4.MessageTypeAck},
		{"REQUEST-NAK", dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrB), dhcpv4.MessageTypeNak},
	}
}

// allocAgents are agents serving the lab pool, without and with an
// address on probation (another client's, so that the cases' replies do
// not change).
func allocAgents(t testing.TB, now time.Time) []struct {
	prefix string
	a      *Agent
} {
	held := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), quietLogger(), WithClock(func() time.Time { return now }))
	held.Probation().Decline(leasestore.MustParseMAC(dhcp4test.MACUnknown), netip.MustParseAddr("10.77.0.12"), now)
	return []struct {
		prefix string
		a      *Agent
	}{
		{"", newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), quietLogger(), WithClock(func() time.Time { return now }))},
		{"probation/", held},
	}
}

// TestRespondInAllocs: the agent's reply path in a reused dhcp4.Scratch
// (what Handle runs, short of the pool and the socket) allocates nothing
// in steady state, for OFFER, ACK, INFORM's ACK and NAK alike, with
// addresses on probation or without.
func TestRespondInAllocs(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range allocAgents(t, now) {
		testRespondInAllocs(t, c.prefix, c.a, now)
	}
}

func testRespondInAllocs(t *testing.T, prefix string, a *Agent, now time.Time) {
	for _, tt := range replyAllocCases(t) {
		t.Run(prefix+tt.name, func(t *testing.T) {
			var s dhcp4.Scratch
			var err error
			got := testing.AllocsPerRun(100, func() {
				var resp *dhcpv4.DHCPv4
				resp, err = a.respondIn(&s, tt.req, now)
				if err == nil && dhcp4.MessageTypeOf(resp) != tt.want {
					t.Fatalf("reply %s, want %s", resp.MessageType(), tt.want)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if got != 0 {
				t.Errorf("%v allocations per reply in a reused scratch, want 0", got)
			}
		})
	}
}

// TestHandleAllocs: the agent's whole per-packet path as Serve runs it
// (dhcp4wire.Decode into a reused message, then handle, which sends to a
// netip.AddrPort) allocates nothing in steady state for an OFFER, ACK or
// NAK, broadcast or unicast: the reply is built in a pooled dhcp4.Scratch
// and encoded into a pooled buffer. RespondAt, whose reply is the caller's, allocates
// a new scratch per reply: 6 allocations.
//
// Under the race detector sync.Pool drops a quarter of what is put back,
// so handle then builds some replies in new scratches: the bound is
// RespondAt's allocations.
func TestHandleAllocs(t *testing.T) {
	const respondAtAllocs = 6 // a new scratch, its options map and its option values
	for _, c := range allocAgents(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		testHandleAllocs(t, c.prefix, c.a, respondAtAllocs)
	}
}

// captureWriter is a replyWriter that keeps the last datagram.
type captureWriter struct {
	last []byte
	to   netip.AddrPort
}

func (w *captureWriter) WriteToUDPAddrPort(b []byte, to netip.AddrPort) (int, error) {
	w.last, w.to = append(w.last[:0], b...), to
	return len(b), nil
}

func testHandleAllocs(t *testing.T, prefix string, a *Agent, respondAtAllocs float64) {
	peer := netip.AddrPortFrom(netip.IPv4Unspecified(), dhcp4.ClientPort)
	for _, tt := range replyAllocCases(t) {
		t.Run(prefix+tt.name, func(t *testing.T) {
			w := &captureWriter{last: make([]byte, 0, 1500)}
			wire := tt.req.ToBytes()
			var m dhcpv4.DHCPv4
			got := testing.AllocsPerRun(100, func() {
				if err := dhcp4wire.Decode(&m, wire); err != nil {
					t.Fatal(err)
				}
				a.handle(w, peer, &m)
			})
			resp, err := dhcpv4.FromBytes(w.last)
			if err != nil || dhcp4.MessageTypeOf(resp) != tt.want {
				t.Fatalf("handle sent %x (%v), want a %s", w.last, err, tt.want)
			}
			fresh := testing.AllocsPerRun(100, func() { _, _ = a.Respond(tt.req) })
			t.Logf("handle: %v allocations per packet; RespondAt: %v", got, fresh)
			if fresh != respondAtAllocs {
				t.Errorf("RespondAt: %v allocations per reply, want %v", fresh, respondAtAllocs)
			}
			switch {
			case !raceEnabled && got != 0:
				t.Errorf("handle: %v allocations per packet, want 0", got)
			case raceEnabled && got > fresh:
				t.Errorf("handle under -race: %v allocations per packet, want at most %v", got, fresh)
			}
		})
	}
}

// TestTrimmedReplyAllocs: a reply that does not fit its client and is
// overloaded allocates only what it hands over: its dhcp4.Trim's Cuts, option
// 52's byte and the file and sname fields' strings. (A trimmed reply is a
// pool to fix, not the steady state, but it must not cost ten.)
func TestTrimmedReplyAllocs(t *testing.T) {
	p := labtest.Pool(dhcp4test.LabAllocated())
	for i := range 100 {
		p.Spec.DNS = append(p.Spec.DNS, netip.AddrFrom4([4]byte{10, 77, 1, byte(i)}).String())
	}
	a := newAgent(t, p, quietLogger())
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	req := dhcp4test.Discover(t, dhcp4test.MACA)
	req.Options[dhcpv4.OptionMaximumDHCPMessageSize.Code()] = []byte{2, 64} // 576
	var s dhcp4.Scratch
	resp, err := a.respondIn(&s, req, now)
	if err != nil {
		t.Fatal(err)
	}
	if resp.BootFileName == "" || resp.ServerHostName == "" || resp.Options[dhcpv4.OptionOptionOverload.Code()] == nil {
		t.Fatalf("the reply does not overload both fields: file %q, sname %q", resp.BootFileName, resp.ServerHostName)
	}
	if got := testing.AllocsPerRun(100, func() { _, _ = a.respondIn(&s, req, now) }); got != 4 {
		t.Errorf("%v allocations per trimmed reply in a reused scratch, want 4", got)
	}
}
