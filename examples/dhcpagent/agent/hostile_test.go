package agent

import (
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// TestSpoofedDeclineDoesNotEvictBoundClient: a DECLINE in a bound
// client's name, sent by anyone at any time, does not stop the client's
// renewals. The handler is driven with the agent's clock, a 10-minute
// probation and a 300 s lease; the spoof comes right after the client's
// ACK, in the middle of its lease, or twice. Every renewal is ACKed, and
// once the client has renewed nothing holds its address.
func TestSpoofedDeclineDoesNotEvictBoundClient(t *testing.T) {
	tests := []struct {
		name   string
		spoofs []time.Duration // after the binding ACK
		renew  time.Duration   // the client's renewal, after the binding ACK
	}{
		{"right after its ACK", []time.Duration{10 * time.Millisecond}, 150 * time.Second},
		{"mid-lease", []time.Duration{75 * time.Second}, 150 * time.Second},
		{"right after its ACK and again mid-lease", []time.Duration{time.Second, 75 * time.Second}, 150 * time.Second},
		{"right before its renewal", []time.Duration{150*time.Second - time.Millisecond}, 150 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := t0
			a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), quietLogger(), WithClock(func() time.Time { return now }))
			conn := &recordingConn{}
			peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}
			a.Handle(conn, peer, dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA))
			for _, at := range tt.spoofs {
				now = t0.Add(at)
				a.Handle(conn, peer, dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrA))
			}
			now = t0.Add(tt.renew)
			a.Handle(conn, peer, dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA))
			now = now.Add(time.Second)
			a.Handle(conn, peer, dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA))
			if diff := cmp.Diff([]string{"ACK", "ACK", "ACK"}, conn.types()); diff != "" {
				t.Errorf("replies to the binding REQUEST and two renewals (-want +got):\n%s", diff)
			}
			if _, held := a.Probation().Holds(dhcp4test.AddrA, now); held {
				t.Errorf("%s on probation after the client renewed it", dhcp4test.AddrA)
			}
		})
	}
}

// TestGenuineDeclineStillHoldsAddress: RFC 2131's MUST stands. A client
// that declines the address it was just ACKed (another host answered its
// ARP probe) is not offered it again during the probation, nor is it
// ACKed to anyone; the DECLINE is counted, reaches the hook and is
// logged. A decline later than the window is refused (counted as a drop).
func TestGenuineDeclineStillHoldsAddress(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		declineAt time.Duration // after the binding ACK
		held      bool
	}{
		{"at once", 5 * time.Millisecond, true},
		{"after dhcpcd's probes", 9 * time.Second, true},
		{"at the end of the window", 60 * time.Second, true},
		{"after the window", 62 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := t0
			var hooked []Decline
			a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), quietLogger(), WithClock(func() time.Time { return now }),
				WithDeclineHook(func(d Decline) { hooked = append(hooked, d) }))
			conn := &recordingConn{}
			peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}
			a.Handle(conn, peer, dhcp4test.Discover(t, dhcp4test.MACA))
			a.Handle(conn, peer, dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA))
			now = t0.Add(tt.declineAt)
			a.Handle(conn, peer, dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrA))
			now = now.Add(10 * time.Second) // the client discovers again
			a.Handle(conn, peer, dhcp4test.Discover(t, dhcp4test.MACA))
			a.Handle(conn, peer, dhcp4test.Discover(t, dhcp4test.MACA))
			a.Handle(conn, peer, dhcp4test.Selecting(t, dhcp4test.MACB, dhcp4test.ServerIP, dhcp4test.AddrA)) // another client asks for it: NAK

			want := []string{"OFFER", "ACK", "NAK"}
			if !tt.held {
				want = []string{"OFFER", "ACK", "OFFER", "OFFER", "NAK"}
			}
			if diff := cmp.Diff(want, conn.types()); diff != "" {
				t.Errorf("replies (-want +got):\n%s", diff)
			}
			if _, held := a.Probation().Holds(dhcp4test.AddrA, now); held != tt.held {
				t.Errorf("%s on probation: %v, want %v", dhcp4test.AddrA, held, tt.held)
			}
			if got, want := len(hooked), map[bool]int{true: 1, false: 0}[tt.held]; got != want {
				t.Errorf("%d declines reached the hook, want %d", got, want)
			}
		})
	}
}

// TestDeclineFloodLogsBounded: a flood of accepted DECLINEs and RELEASEs
// (the clients' own addresses, each DECLINE right after its ACK) writes a
// bounded number of level-0 lines, whatever its size; the counts are all
// in Stats (and so in the summary), and the lines that are logged say how
// many were not.
func TestDeclineFloodLogsBounded(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	logs := &logtest.Buffer{}
	a := newAgent(t, benchPool(1000), logtest.Logger(logs, 0), WithClock(func() time.Time { return now }))
	conn := &recordingConn{}
	peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}
	const n = 1000
	for i := range n {
		mac := fmt.Sprintf("52:54:00:00:%02x:%02x", i>>8, i&0xff)
		addr := netip.AddrFrom4([4]byte{10, 77, byte(1 + i>>8), byte(i)})
		a.Handle(conn, peer, dhcp4test.Selecting(t, mac, dhcp4test.ServerIP, addr))
		a.Handle(conn, peer, dhcp4test.Decline(t, mac, addr))
		a.Handle(conn, peer, dhcp4test.Message(t, mac, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(dhcp4test.NetIP(addr))))
		now = now.Add(10 * time.Millisecond) // 10 s in all
	}
	if s := a.Stats(now); s.Declines != n || s.Releases != n {
		t.Fatalf("%d DECLINEs and %d RELEASEs accepted, want %d of each", s.Declines, s.Releases, n)
	}
	log := logs.String()
	for _, kind := range []string{`"DECLINE: address on probation"`, `"RELEASE"`} {
		if got := strings.Count(log, kind); got > logBurst {
			t.Errorf("%d lines %s for %d accepted within 10s, want at most %d", got, kind, n, logBurst)
		}
	}
	// A minute later, the next line says how many were not logged.
	now = now.Add(time.Minute)
	a.Handle(conn, peer, dhcp4test.Selecting(t, "52:54:00:00:00:00", dhcp4test.ServerIP, netip.MustParseAddr("10.77.1.0")))
	a.Handle(conn, peer, dhcp4test.Decline(t, "52:54:00:00:00:00", netip.MustParseAddr("10.77.1.0")))
	if want := fmt.Sprintf(`notLogged=%d`, n-logBurst); !strings.Contains(logs.String(), want) {
		t.Errorf("the first DECLINE line after the flood lacks %s:\n%s", want, logs.String()[len(log):])
	}
}

// TestClientTextCannotForgeLogLine: the text a client puts in its DECLINE
// (option 56) reaches the log on one line, escaped and cut to
// maxClientText bytes, whatever it holds: a newline followed by what
// looks like a log line does not make one, and 60,000 bytes of text make
// a line of at most a few hundred bytes more than one without text.
func TestClientTextCannotForgeLogLine(t *testing.T) {
	forged := "I0101 00:00:00.000000 1 agent.go:1] \"RELEASE\" pool=\"default/lab\" mac=\"52:54:00:aa:00:02\" addr=\"10.77.0.11\""
	tests := []struct {
		name    string
		text    string
		message string // what the line's message= shows
	}{
		{"a newline and a forged line", "in use\n" + forged, `message="in use\\nI0101 00:00:00.000000 1 agent.go:1] \"RELEASE\" pool=\"default/lab\"`},
		{"60,000 bytes", strings.Repeat("A", 60000), `message="` + strings.Repeat("A", maxClientText) + `... (60000 bytes)"`},
		{"control bytes and invalid UTF-8", "\r\x1b[2J\xff", `message="\\r\\x1b[2J\\xff"`},
		{"plain text", "address in use", `message="address in use"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			logs := &logtest.Buffer{}
			a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), logtest.Logger(logs, 0), WithClock(func() time.Time { return now }))
			before := len(logs.String())
			conn := &recordingConn{}
			peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}
			a.Handle(conn, peer, dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA))
			a.Handle(conn, peer, dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrA, dhcpv4.WithOption(dhcpv4.OptMessage(tt.text))))
			out := logs.String()[before:]
			header := regexp.MustCompile(`^[IWE]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ \S+:\d+\] "`)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 1 {
				t.Fatalf("the DECLINE logged %d lines, want 1:\n%s", len(lines), out)
			}
			if !header.MatchString(lines[0]) || strings.Contains(lines[0][1:], "\nI0101") {
				t.Errorf("not one log line: %q", lines[0])
			}
			if !strings.Contains(lines[0], tt.message) {
				t.Errorf("line %q lacks %s", lines[0], tt.message)
			}
			if len(lines[0]) > 2*maxClientText+300 {
				t.Errorf("line of %d bytes for %d bytes of client text", len(lines[0]), len(tt.text))
			}
		})
	}
}

// FuzzClientText: whatever a client sends, its text in a log line holds
// no control byte and no invalid UTF-8, and is bounded by a constant.
func FuzzClientText(f *testing.F) {
	for _, s := range []string{"", "address in use", "a\nb", "\xff\xfe", strings.Repeat("é", 300), `\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := clientText(b)
		if !utf8.ValidString(got) {
			t.Fatalf("clientText(%q) = %q: invalid UTF-8", b, got)
		}
		for _, r := range got {
			if unicode.IsControl(r) {
				t.Fatalf("clientText(%q) = %q: control character %U", b, got, r)
			}
		}
		if len(got) > 4*maxClientText+32 {
			t.Fatalf("clientText of %d bytes is %d bytes", len(b), len(got))
		}
	})
}
