package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/leasestore"

	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"k8s.io/klog/v2/textlogger"
)

func decline(t fataler, mac string, addr netip.Addr, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
	return msg(t, mac, dhcpv4.MessageTypeDecline, append([]dhcpv4.Modifier{
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(netIP(serverIP))),
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(addr)))}, mods...)...)
}

func TestDeclinedAndReleased(t *testing.T) {
	table := TableOf(labStore(t, labAllocated()))
	other := netip.MustParseAddr("10.77.0.254")
	tests := []struct {
		name    string
		check   func(*dhcpv4.DHCPv4, Table) (netip.Addr, error)
		req     *dhcpv4.DHCPv4
		want    netip.Addr
		wantErr error
	}{
		{name: "decline of its own address", check: declinedAddr, req: decline(t, macA, addrA), want: addrA},
		{
			name: "decline without server identifier", check: declinedAddr,
			req:  msg(t, macA, dhcpv4.MessageTypeDecline, dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(addrA)))),
			want: addrA,
		},
		{name: "decline of another MAC's address", check: declinedAddr, req: decline(t, macA, addrB), wantErr: ErrNotLeased},
		{name: "decline from an unknown MAC", check: declinedAddr, req: decline(t, macUnknown, addrA), wantErr: ErrUnknownClient},
		{
			name: "decline to another server", check: declinedAddr,
			req:     decline(t, macA, addrA, dhcpv4.WithOption(dhcpv4.OptServerIdentifier(netIP(other)))),
			wantErr: ErrOtherServer,
		},
		{name: "decline naming no address", check: declinedAddr, req: msg(t, macA, dhcpv4.MessageTypeDecline), wantErr: ErrNotLeased},
		{name: "a DISCOVER is no decline", check: declinedAddr, req: discover(t, macA), wantErr: ErrMessageType},
		{name: "release of its own address", check: releasedAddr, req: msg(t, macA, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(netIP(addrA))), want: addrA},
		{name: "release of another address", check: releasedAddr, req: msg(t, macA, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(netIP(addrB))), wantErr: ErrNotLeased},
		{name: "release from an unknown MAC", check: releasedAddr, req: msg(t, macUnknown, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(netIP(addrA))), wantErr: ErrUnknownClient},
		{name: "release without a table", check: func(m *dhcpv4.DHCPv4, _ Table) (netip.Addr, error) { return releasedAddr(m, Table{}) },
			req: msg(t, macA, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(netIP(addrA))), wantErr: ErrNoTable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.check(tt.req, table)
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("got %v, %v; want %v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func declinedAddr(m *dhcpv4.DHCPv4, t Table) (netip.Addr, error) {
	l, err := Declined(m, t)
	return l.Addr, err
}

func releasedAddr(m *dhcpv4.DHCPv4, t Table) (netip.Addr, error) {
	l, err := Released(m, t)
	return l.Addr, err
}

// TestReplyOnProbation checks the answers about a declined address while
// it is on probation: no offer, a NAK to a request for it; other clients
// are served as before.
func TestReplyOnProbation(t *testing.T) {
	table := TableOf(labStore(t, labAllocated()))
	table.Probation, table.Now = probation.NewSet(time.Hour), time.Unix(1e9, 0)
	table.Probation.Decline(leasestore.MustParseMAC(macUnknown), addrA, table.Now)
	tests := []struct {
		name    string
		req     *dhcpv4.DHCPv4
		want    view
		wantErr error
	}{
		{name: "discover: silence", req: discover(t, macA), wantErr: ErrOnProbation},
		{name: "selecting: NAK", req: selecting(t, macA, serverIP, addrA), want: nakView(macA, "10.77.0.10 was declined and is on probation")},
		{name: "init-reboot: NAK", req: initReboot(t, macA, addrA), want: nakView(macA, "10.77.0.10 was declined and is on probation")},
		{name: "renewing: NAK", req: renewing(t, macA, addrA), want: nakView(macA, "10.77.0.10 was declined and is on probation")},
		{name: "another MAC: offered", req: discover(t, macB), want: offerView(macB, addrB)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := ReplyTo(tt.req, table)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || got != nil {
					t.Fatalf("ReplyTo = %v, %v; want nil, %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, viewOf(t, got)); diff != "" {
				t.Errorf("ReplyTo (-want +got):\n%s", diff)
			}
		})
	}
}

// informView is the ACK to an INFORM from mac at ciaddr: the pool's
// options without the lease times.
func informView(mac, ciaddr string) view {
	opts := labOptions("ACK")
	delete(opts, "51 lease time")
	delete(opts, "58 renewal time")
	delete(opts, "59 rebinding time")
	return replyView(mac, ciaddr, "0.0.0.0", opts)
}

func TestReplyInform(t *testing.T) {
	store := labStore(t, labAllocated())
	static := netip.MustParseAddr("10.77.0.250") // configured by hand, in no lease
	inform := func(mac string, ciaddr netip.Addr, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
		return msg(t, mac, dhcpv4.MessageTypeInform, append([]dhcpv4.Modifier{dhcpv4.WithClientIP(netIP(ciaddr))}, mods...)...)
	}
	tests := []struct {
		name    string
		table   Table
		req     *dhcpv4.DHCPv4
		want    view
		wantErr error
	}{
		{name: "leased client", table: TableOf(store), req: inform(macA, addrA), want: informView(macA, "10.77.0.10")},
		{name: "client without a lease, static address in the prefix", table: TableOf(store), req: inform(macUnknown, static), want: informView(macUnknown, "10.77.0.250")},
		{
			name: "address on probation: still informed",
			table: func() Table {
				tb := TableOf(store)
				tb.Probation, tb.Now = probation.NewSet(time.Hour), time.Unix(1e9, 0)
				tb.Probation.Decline(leasestore.MustParseMAC(macUnknown), addrA, tb.Now)
				return tb
			}(),
			req: inform(macA, addrA), want: informView(macA, "10.77.0.10"),
		},
		{
			name: "relayed: giaddr kept", table: TableOf(store),
			req: inform(macUnknown, static, dhcpv4.WithGatewayIP(net.IPv4(10, 77, 0, 254))),
			want: func() view {
				v := informView(macUnknown, "10.77.0.250")
				v.GIAddr = "10.77.0.254"
				return v
			}(),
		},
		{name: "address outside the prefix", table: TableOf(store), req: inform(macA, netip.MustParseAddr("192.168.1.7")), wantErr: ErrNotServed},
		{name: "no ciaddr", table: TableOf(store), req: msg(t, macA, dhcpv4.MessageTypeInform), wantErr: ErrNotServed},
		{
			name: "empty table: the pool's options still answer", table: func() Table {
				a := newAgent(t, labPool(nil), quietLogger())
				return a.TableAt(time.Time{})
			}(),
			req: inform(macUnknown, static), want: informView(macUnknown, "10.77.0.250"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := ReplyTo(tt.req, tt.table)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || got != nil {
					t.Fatalf("ReplyTo = %v, %v; want nil, %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, viewOf(t, got)); diff != "" {
				t.Errorf("ReplyTo (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAuthoritativeNakEmptyTable checks that a MAC removed with the last
// lease is still NAKed: the prefix comes from the pool, not from a lease.
func TestAuthoritativeNakEmptyTable(t *testing.T) {
	a := newAgent(t, labPool(nil), quietLogger())
	got, err := a.Respond(renewing(t, macA, addrA))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(nakView(macA, "10.77.0.10 is not leased to 52:54:00:aa:00:01"), viewOf(t, got)); diff != "" {
		t.Errorf("Respond (-want +got):\n%s", diff)
	}
}

// TestHandleDeclineAndRelease sends a DECLINE and a RELEASE through the
// handler: the decline holds the address for the probation period and no
// longer, each is logged at level 0 with the MAC and address, counted, and
// the decline reaches the hook.
func TestHandleDeclineAndRelease(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	logs := &logBuffer{}
	var hooked []Decline
	a := newAgent(t, labPool(labAllocated()), newLevel0Logger(logs),
		WithProbation(time.Minute), WithClock(func() time.Time { return now }),
		WithDeclineHook(func(d Decline) { hooked = append(hooked, d) }))
	conn := &recordingConn{}
	peer := &net.UDPAddr{IP: net.IPv4bcast, Port: ClientPort}

	a.Handle(conn, peer, selecting(t, macA, serverIP, addrA)) // the ACK after which a client probes and declines
	a.Handle(conn, peer, decline(t, macA, addrA))
	a.Handle(conn, peer, decline(t, macA, addrB)) // not its own: ignored
	a.Handle(conn, peer, discover(t, macA))
	now = now.Add(time.Minute - time.Second)
	a.Handle(conn, peer, discover(t, macA))
	now = now.Add(time.Second)
	a.Handle(conn, peer, discover(t, macA))
	a.Handle(conn, peer, msg(t, macB, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(netIP(addrB))))

	if got := conn.types(); !cmp.Equal(got, []string{"ACK", "OFFER"}) {
		t.Errorf("sent %v, want the ACK, then one OFFER, after the probation", got)
	}
	wantHook := []Decline{{Pool: "default/lab", MAC: macA, Addr: addrA, Until: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)}}
	if diff := cmp.Diff(wantHook, hooked, cmpopts.EquateComparable(netip.Addr{})); diff != "" {
		t.Errorf("decline hook (-want +got):\n%s", diff)
	}
	want := Stats{Received: 7, Offers: 1, Acks: 1, Declines: 1, Releases: 1, Drops: 3, Loads: 1,
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

// newLevel0Logger logs what the command logs by default, to w.
func newLevel0Logger(w io.Writer) logr.Logger {
	return textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(w)))
}

// TestHandleNakDestination sends NAKs through the handler: to ciaddr when
// the client renews, by broadcast otherwise, and by broadcast when ciaddr
// cannot be reached.
func TestHandleNakDestination(t *testing.T) {
	a := newAgent(t, labPool(movedAllocated()), quietLogger())
	tests := []struct {
		name   string
		req    *dhcpv4.DHCPv4
		peer   string
		fail   []string
		wantTo []string
	}{
		{name: "renewing", req: renewing(t, macA, addrA), peer: "10.77.0.10:68", wantTo: []string{"10.77.0.10:68"}},
		{name: "removed MAC renewing", req: renewing(t, macUnknown, addrA), peer: "10.77.0.10:68", wantTo: []string{"10.77.0.10:68"}},
		{name: "init-reboot", req: initReboot(t, macA, addrA), peer: "255.255.255.255:68", wantTo: []string{"255.255.255.255:68"}},
		{name: "relayed", req: msg(t, macA, dhcpv4.MessageTypeRequest, dhcpv4.WithClientIP(netIP(addrA)), dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))),
			peer: "10.0.0.1:67", wantTo: []string{"10.0.0.1:67"}},
		{name: "ciaddr unreachable: broadcast", req: renewing(t, macA, addrA), peer: "10.77.0.10:68", fail: []string{"10.77.0.10:68"},
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
