package agent

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// backlogConn is a socket whose send buffer holds queued of capacity
// bytes, which holds the link-layer address of resolved only, failing
// every write with fail when set; it records where each datagram went.
type backlogConn struct {
	queued, capacity int
	resolved         netip.Addr
	fail             error
	to               []string
}

func (c *backlogConn) Resolved(a netip.Addr) bool { return a.IsValid() && a.WithZone("") == c.resolved }

func (c *backlogConn) WriteToUDPAddrPort(b []byte, to netip.AddrPort) (int, error) {
	if c.fail != nil {
		return 0, c.fail
	}
	c.to = append(c.to, to.String())
	return len(b), nil
}

func (c *backlogConn) WriteTo(b []byte, to netip.AddrPort, _ [6]byte) (int, error) {
	return c.WriteToUDPAddrPort(b, to)
}

func (c *backlogConn) Backlog() (int, int, error) { return c.queued, c.capacity, nil }

var (
	lab6MAC   = "52:54:00:aa:00:01"
	lab6Addr  = "2001:db8:30::a"
	lab6Relay = netip.MustParseAddr("2001:db8:30::99")
	lab6DUID  = []byte{0, 3, 0, 1, 2, 0, 0, 0, 0, 0x53}
)

// newAgent6 serves lab6Pool with lab6MAC's lease, trusting lab6Relay.
func newAgent6(t testing.TB, log *logtest.Buffer, now *time.Time) *Agent {
	t.Helper()
	logger := quietLogger()
	if log != nil {
		logger = logtest.Logger(log, 0)
	}
	return newAgent(t, lab6Pool(map[string]string{lab6Addr: lab6MAC}), logger,
		WithServerDUID(lab6DUID), WithRelays6([]netip.Prefix{netip.PrefixFrom(lab6Relay, 128)}),
		WithClock(func() time.Time { return *now }))
}

// message6 is a client message of lab6MAC's, from its DUID-LLT.
func message6(typ dhcp6wire.MessageType, serverID []byte, ias int) []byte {
	m := dhcp6wire.Message{Type: typ, TransactionID: [3]byte{1, 2, 3}, HasElapsedTime: true,
		ClientID: dhcp6wire.AppendDUIDLLT(nil, 1, leasestore.MustParseMAC(lab6MAC).As6()), ServerID: serverID,
		ORO: []dhcp6wire.OptionCode{dhcp6wire.OptionDNSServers, dhcp6wire.OptionDomainList}}
	for i := range ias {
		ia := dhcp6wire.IANA{IAID: uint32(i + 1)}
		if typ != dhcp6wire.Solicit {
			ia.Addrs = []dhcp6wire.IAAddr{{Addr: netip.MustParseAddr(lab6Addr)}}
		}
		m.IANA = append(m.IANA, ia)
	}
	return dhcp6wire.AppendMessage(nil, &m)
}

// relayed6 wraps msg in a RELAY-FORW.
func relayed6(t testing.TB, msg []byte) []byte {
	t.Helper()
	var p dhcp6wire.Packet
	if err := dhcp6wire.Decode(&p, msg); err != nil {
		t.Fatal(err)
	}
	p.Relays = []dhcp6wire.Relay{{Type: dhcp6wire.RelayForw, LinkAddr: lab6Relay, PeerAddr: netip.MustParseAddr("fe80::5054:ff:feaa:1")}}
	return dhcp6wire.Append(nil, &p)
}

// TestSendRoom: a reply to a destination not known to be reachable (a
// DHCPv4 unicast, a DHCPv6 reply through the UDP socket to anything but a
// listed relay) is sent only while the socket's send buffer is less than
// half full; broadcasts, listed relays and the packet socket's replies
// are sent whatever it holds; a NAK that cannot go to ciaddr is
// broadcast; what is not sent is counted as dropped, not as an error.
func TestSendRoom(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	half, full := 100, 60
	tests := []struct {
		name        string
		queued      int // of 100
		resolved    string
		fail        error
		v4          *dhcpv4.DHCPv4
		v6          []byte
		frames, rel bool // DHCPv6: read by the packet socket; from the listed relay
		wantTo      []string
		wantDropped uint64
		wantErrors  uint64
	}{
		{name: "v4 broadcast OFFER, buffer full", queued: full, v4: dhcp4test.Discover(t, dhcp4test.MACA), wantTo: []string{"255.255.255.255:68"}},
		{name: "v4 ACK to ciaddr, room", queued: 0, v4: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), wantTo: []string{"10.77.0.10:68"}},
		{name: "v4 ACK to ciaddr, buffer half full", queued: half / 2, v4: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), wantDropped: 1},
		{name: "v4 ACK to a resolved ciaddr, buffer full", queued: full, resolved: "10.77.0.10", v4: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA),
			wantTo: []string{"10.77.0.10:68"}},
		{name: "v4 ACK to ciaddr, another address resolved, buffer full", queued: full, resolved: "10.77.0.11", v4: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), wantDropped: 1},
		{name: "v4 NAK to ciaddr, buffer full: broadcast", queued: full, v4: dhcp4test.Renewing(t, dhcp4test.MACA, netip.MustParseAddr("10.77.0.99")),
			wantTo: []string{"255.255.255.255:68"}},
		{name: "v4 relay, buffer full", queued: full, v4: relayed4(t), wantDropped: 1},
		{name: "v4 socket would block", queued: 0, fail: fmt.Errorf("write: %w", udpsocket.ErrWouldBlock), v4: dhcp4test.Discover(t, dhcp4test.MACA), wantDropped: 1},
		{name: "v4 socket error", queued: 0, fail: errors.New("sendto: network is unreachable"), v4: dhcp4test.Discover(t, dhcp4test.MACA), wantErrors: 1},
		{name: "v6 UDP socket, a client's unicast REQUEST, room", queued: 0, v6: message6(dhcp6wire.Request, lab6DUID, 1), wantTo: []string{"[fe80::5054:ff:feaa:1%eth0]:546"}},
		{name: "v6 UDP socket, a client's unicast, buffer full", queued: full, v6: message6(dhcp6wire.Request, lab6DUID, 1), wantDropped: 1},
		{name: "v6 UDP socket, a resolved client's unicast, buffer full", queued: full, resolved: "fe80::5054:ff:feaa:1", v6: message6(dhcp6wire.Request, lab6DUID, 1),
			wantTo: []string{"[fe80::5054:ff:feaa:1%eth0]:546"}},
		{name: "v6 listed relay, buffer full", queued: full, v6: message6(dhcp6wire.Solicit, nil, 1), rel: true, wantTo: []string{"[2001:db8:30::99]:547"}},
		{name: "v6 packet socket, buffer full", queued: full, v6: message6(dhcp6wire.Solicit, nil, 1), frames: true, wantTo: []string{"[fe80::5054:ff:feaa:1%eth0]:546"}},
		{name: "v6 packet socket would block", fail: fmt.Errorf("write: %w", udpsocket.ErrWouldBlock), v6: message6(dhcp6wire.Solicit, nil, 1), frames: true, wantDropped: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn := &backlogConn{queued: tc.queued, capacity: 100, fail: tc.fail}
			if tc.resolved != "" {
				conn.resolved = netip.MustParseAddr(tc.resolved)
			}
			if tc.v4 != nil {
				a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), quietLogger(), WithClock(func() time.Time { return now }))
				peer := netip.MustParseAddrPort("255.255.255.255:68")
				if tc.v4.ClientIPAddr != nil && !tc.v4.ClientIPAddr.IsUnspecified() {
					peer = netip.AddrPortFrom(netip.MustParseAddr(tc.v4.ClientIPAddr.String()), 68)
				}
				a.handle(conn, peer, tc.v4)
				assertSent(t, conn.to, tc.wantTo, a.counters.Read().SendDropped, tc.wantDropped, a.counters.Read().SendErrors, tc.wantErrors)
				return
			}
			a := newAgent6(t, nil, &now)
			s := newScratch6()
			peer := netip.MustParseAddrPort("[fe80::5054:ff:feaa:1]:546")
			arr := dhcp6.Arrival{Source: peer.Addr(), Unicast: true}
			msg := tc.v6
			w := out6{conn: conn}
			switch {
			case tc.rel:
				peer = netip.AddrPortFrom(lab6Relay, 547)
				arr = dhcp6.Arrival{Source: lab6Relay, Unicast: true}
				msg = relayed6(t, msg)
			case tc.frames:
				arr = dhcp6.Arrival{Source: peer.Addr(), FrameMAC: leasestore.MustParseMAC(lab6MAC), HasFrame: true}
				w = out6{frames: conn, mac: arr.FrameMAC.As6()}
			}
			a.handle6(s, w, msg, arr, peer, "eth0")
			st := a.Stats6(now)
			assertSent(t, conn.to, tc.wantTo, st.SendDropped, tc.wantDropped, st.SendErrors, tc.wantErrors)
		})
	}
}

func relayed4(t testing.TB) *dhcpv4.DHCPv4 {
	m := dhcp4test.Discover(t, dhcp4test.MACA)
	m.GatewayIPAddr = net.IPv4(10, 77, 0, 3).To4()
	return m
}

func assertSent(t *testing.T, to, wantTo []string, dropped, wantDropped, errs, wantErrs uint64) {
	t.Helper()
	if diff := cmp.Diff(wantTo, to); diff != "" {
		t.Errorf("sent to (-want +got):\n%s", diff)
	}
	if dropped != wantDropped || errs != wantErrs {
		t.Errorf("counted %d dropped and %d send errors, want %d and %d", dropped, errs, wantDropped, wantErrs)
	}
}

// TestSendFailureLogsBounded: 2,000 replies the socket refuses (2,000
// lines of 170 bytes before) write at most logBurst lines a minute of
// each kind, whatever the refusal, for DHCPv4 and DHCPv6; every refusal
// is counted, and the next line logged says how many were not.
func TestSendFailureLogsBounded(t *testing.T) {
	const n = 2000
	for _, tc := range []struct {
		name string
		fail error
		v6   bool
		line string
	}{
		{"v4 socket error", errors.New("sendto: network is unreachable"), false, `"send failed"`},
		{"v4 no room", fmt.Errorf("write: %w", udpsocket.ErrWouldBlock), false, `"reply dropped: no room to send it now"`},
		{"v6 socket error", errors.New("sendto: network is unreachable"), true, `"DHCPv6 send failed"`},
		{"v6 no room", fmt.Errorf("write: %w", udpsocket.ErrWouldBlock), true, `"DHCPv6 reply dropped: no room to send it now"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			logs := &logtest.Buffer{}
			conn := &backlogConn{capacity: 100, fail: tc.fail}
			var a *Agent
			var send func()
			if tc.v6 {
				a = newAgent6(t, logs, &now)
				s, msg := newScratch6(), message6(dhcp6wire.Solicit, nil, 1)
				peer := netip.MustParseAddrPort("[fe80::5054:ff:feaa:1]:546")
				arr := dhcp6.Arrival{Source: peer.Addr(), FrameMAC: leasestore.MustParseMAC(lab6MAC), HasFrame: true}
				send = func() { a.handle6(s, out6{frames: conn}, msg, arr, peer, "eth0") }
			} else {
				a = newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), logtest.Logger(logs, 0), WithClock(func() time.Time { return now }))
				m := dhcp4test.Discover(t, dhcp4test.MACA)
				send = func() { a.handle(conn, netip.MustParseAddrPort("255.255.255.255:68"), m) }
			}
			before := len(logs.String())
			for range n {
				send()
				now = now.Add(25 * time.Microsecond) // 2,000 in 0.05 s
			}
			log := logs.String()[before:]
			t.Logf("%d refused sends: %d lines, %d bytes of log", n, strings.Count(log, "\n"), len(log))
			if got := strings.Count(log, tc.line); got != logBurst {
				t.Errorf("%d lines %s for %d refused sends, want %d:\n%s", got, tc.line, n, logBurst, log)
			}
			if len(log) > logBurst*400 {
				t.Errorf("%d bytes of log for %d refused sends, want at most %d", len(log), n, logBurst*400)
			}
			st := a.counters.Read()
			if tc.v6 {
				st = a.counters6.Read()
			}
			if st.SendDropped+st.SendErrors != n {
				t.Errorf("counted %d dropped and %d errors, want %d in all", st.SendDropped, st.SendErrors, n)
			}
			now = now.Add(time.Minute)
			send()
			if want := fmt.Sprintf("notLogged=%d", n-logBurst); !strings.Contains(logs.String()[before+len(log):], want) {
				t.Errorf("the first line a minute later lacks %s:\n%s", want, logs.String()[before+len(log):])
			}
		})
	}
}

// TestHostileMessages6: what a host on the link can send to make the
// agent reflect or amplify: a message from a multicast, unspecified or
// loopback source gets no reply; a REQUEST with 1,000 IA_NAs, whose REPLY
// would be 3 times its 16 KB, is refused and counted, with one log line;
// a relayed message from an unlisted relay gets nothing, is counted and
// logged within its limit, however many come.
func TestHostileMessages6(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	logs := &logtest.Buffer{}
	a := newAgent6(t, logs, &now)
	conn := &backlogConn{capacity: 100}
	s := newScratch6()
	onLink := func(src string) (dhcp6.Arrival, netip.AddrPort) {
		peer := netip.AddrPortFrom(netip.MustParseAddr(src), 546)
		return dhcp6.Arrival{Source: peer.Addr(), FrameMAC: leasestore.MustParseMAC(lab6MAC), HasFrame: true}, peer
	}
	for _, src := range []string{"ff02::1", "ff02::1:2", "::", "::1"} {
		arr, peer := onLink(src)
		a.handle6(s, out6{frames: conn}, message6(dhcp6wire.Solicit, nil, 1), arr, peer, "eth0")
	}
	if len(conn.to) != 0 {
		t.Errorf("replies to multicast, unspecified and loopback sources went to %v", conn.to)
	}
	big := message6(dhcp6wire.Request, a.ServerDUID(), 1000)
	arr, peer := onLink("fe80::5054:ff:feaa:1")
	a.handle6(s, out6{frames: conn}, big, arr, peer, "eth0")
	if len(conn.to) != 0 || a.counters6.Oversized.Load() != 1 {
		t.Errorf("a %d-byte REQUEST: replies %v, %d counted oversized; want none and 1", len(big), conn.to, a.counters6.Oversized.Load())
	}
	if !strings.Contains(logs.String(), `"DHCPv6 reply refused: larger than its request allows"`) {
		t.Errorf("no line for the oversized reply:\n%s", logs)
	}
	before := len(logs.String())
	unlisted := netip.MustParseAddrPort("[2001:db8:30::66]:547")
	for range 1000 {
		a.handle6(s, out6{conn: conn}, relayed6(t, message6(dhcp6wire.Solicit, nil, 1)), dhcp6.Arrival{Source: unlisted.Addr(), Unicast: true}, unlisted, "eth0")
	}
	if len(conn.to) != 0 || a.counters6.UntrustedRelays.Load() != 1000 {
		t.Errorf("1,000 RELAY-FORWs from an unlisted relay: replies %v, %d counted; want none and 1,000", conn.to, a.counters6.UntrustedRelays.Load())
	}
	if got := strings.Count(logs.String()[before:], "its relay is not listed"); got != logBurst {
		t.Errorf("%d lines for 1,000 unlisted relayed messages, want %d", got, logBurst)
	}
	// The legitimate client is answered all along.
	a.handle6(s, out6{frames: conn}, message6(dhcp6wire.Solicit, nil, 1), arr, peer, "eth0")
	if len(conn.to) != 1 {
		t.Errorf("the client's SOLICIT got %d replies, want 1", len(conn.to))
	}
}
