package dhcp4

import (
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

func TestDeclinedAndReleased(t *testing.T) {
	table := TableOf(storeOf(t, labtest.Pool(dhcp4test.LabAllocated())))
	other := netip.MustParseAddr("10.77.0.254")
	tests := []struct {
		name    string
		check   func(*dhcpv4.DHCPv4, Table) (netip.Addr, error)
		req     *dhcpv4.DHCPv4
		want    netip.Addr
		wantErr error
	}{
		{name: "decline of its own address", check: declinedAddr, req: dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrA), want: dhcp4test.AddrA},
		{
			name: "decline without server identifier", check: declinedAddr,
			req:  dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDecline, dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(dhcp4test.NetIP(dhcp4test.AddrA)))),
			want: dhcp4test.AddrA,
		},
		{name: "decline of another MAC's address", check: declinedAddr, req: dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrB), wantErr: ErrNotLeased},
		{name: "decline from an unknown MAC", check: declinedAddr, req: dhcp4test.Decline(t, dhcp4test.MACUnknown, dhcp4test.AddrA), wantErr: ErrUnknownClient},
		{
			name: "decline to another server", check: declinedAddr,
			req:     dhcp4test.Decline(t, dhcp4test.MACA, dhcp4test.AddrA, dhcpv4.WithOption(dhcpv4.OptServerIdentifier(dhcp4test.NetIP(other)))),
			wantErr: ErrOtherServer,
		},
		{name: "decline naming no address", check: declinedAddr, req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDecline), wantErr: ErrNotLeased},
		{name: "a DISCOVER is no decline", check: declinedAddr, req: dhcp4test.Discover(t, dhcp4test.MACA), wantErr: ErrMessageType},
		{name: "release of its own address", check: releasedAddr, req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA))), want: dhcp4test.AddrA},
		{name: "release of another address", check: releasedAddr, req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrB))), wantErr: ErrNotLeased},
		{name: "release from an unknown MAC", check: releasedAddr, req: dhcp4test.Message(t, dhcp4test.MACUnknown, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA))), wantErr: ErrUnknownClient},
		{name: "release without a table", check: func(m *dhcpv4.DHCPv4, _ Table) (netip.Addr, error) { return releasedAddr(m, Table{}) },
			req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA))), wantErr: ErrNoTable},
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
	table := TableOf(storeOf(t, labtest.Pool(dhcp4test.LabAllocated())))
	table.Probation, table.Now = probation.NewSet(time.Hour), time.Unix(1e9, 0)
	table.Probation.Decline(leasestore.MustParseMAC(dhcp4test.MACUnknown), dhcp4test.AddrA, table.Now)
	tests := []struct {
		name    string
		req     *dhcpv4.DHCPv4
		want    dhcp4test.View
		wantErr error
	}{
		{name: "discover: silence", req: dhcp4test.Discover(t, dhcp4test.MACA), wantErr: ErrOnProbation},
		{name: "selecting: NAK", req: dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA), want: dhcp4test.NakView(dhcp4test.MACA, "10.77.0.10 was declined and is on probation")},
		{name: "init-reboot: NAK", req: dhcp4test.InitReboot(t, dhcp4test.MACA, dhcp4test.AddrA), want: dhcp4test.NakView(dhcp4test.MACA, "10.77.0.10 was declined and is on probation")},
		{name: "renewing: NAK", req: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), want: dhcp4test.NakView(dhcp4test.MACA, "10.77.0.10 was declined and is on probation")},
		{name: "another MAC: offered", req: dhcp4test.Discover(t, dhcp4test.MACB), want: dhcp4test.OfferView(dhcp4test.MACB, dhcp4test.AddrB)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkReplyTo(t, tt.req, table, tt.want, tt.wantErr)
		})
	}
}

func TestReplyInform(t *testing.T) {
	store := storeOf(t, labtest.Pool(dhcp4test.LabAllocated()))
	static := netip.MustParseAddr("10.77.0.250") // configured by hand, in no lease
	inform := func(mac string, ciaddr netip.Addr, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
		return dhcp4test.Message(t, mac, dhcpv4.MessageTypeInform, append([]dhcpv4.Modifier{dhcpv4.WithClientIP(dhcp4test.NetIP(ciaddr))}, mods...)...)
	}
	tests := []struct {
		name    string
		table   Table
		req     *dhcpv4.DHCPv4
		want    dhcp4test.View
		wantErr error
	}{
		{name: "leased client", table: TableOf(store), req: inform(dhcp4test.MACA, dhcp4test.AddrA), want: dhcp4test.InformView(dhcp4test.MACA, "10.77.0.10")},
		{name: "client without a lease, static address in the prefix", table: TableOf(store), req: inform(dhcp4test.MACUnknown, static), want: dhcp4test.InformView(dhcp4test.MACUnknown, "10.77.0.250")},
		{
			name: "address on probation: still informed",
			table: func() Table {
				tb := TableOf(store)
				tb.Probation, tb.Now = probation.NewSet(time.Hour), time.Unix(1e9, 0)
				tb.Probation.Decline(leasestore.MustParseMAC(dhcp4test.MACUnknown), dhcp4test.AddrA, tb.Now)
				return tb
			}(),
			req: inform(dhcp4test.MACA, dhcp4test.AddrA), want: dhcp4test.InformView(dhcp4test.MACA, "10.77.0.10"),
		},
		{
			name: "relayed: giaddr kept", table: TableOf(store),
			req: inform(dhcp4test.MACUnknown, static, dhcpv4.WithGatewayIP(net.IPv4(10, 77, 0, 254))),
			want: func() dhcp4test.View {
				v := dhcp4test.InformView(dhcp4test.MACUnknown, "10.77.0.250")
				v.GIAddr = "10.77.0.254"
				return v
			}(),
		},
		{name: "address outside the prefix", table: TableOf(store), req: inform(dhcp4test.MACA, netip.MustParseAddr("192.168.1.7")), wantErr: ErrNotServed},
		{name: "no ciaddr", table: TableOf(store), req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeInform), wantErr: ErrNotServed},
		{
			name: "empty table: the pool's options still answer", table: func() Table {
				return tableOf(t, labtest.Pool(nil))
			}(),
			req: inform(dhcp4test.MACUnknown, static), want: dhcp4test.InformView(dhcp4test.MACUnknown, "10.77.0.250"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkReplyTo(t, tt.req, tt.table, tt.want, tt.wantErr)
		})
	}
}

// checkReplyTo fails t unless ReplyTo(req, table) fails with wantErr (and
// no reply), or, with wantErr nil, replies with a message whose view is
// want.
func checkReplyTo(t *testing.T, req *dhcpv4.DHCPv4, table Table, want dhcp4test.View, wantErr error) {
	t.Helper()
	got, _, err := ReplyTo(req, table)
	if wantErr != nil {
		if !errors.Is(err, wantErr) || got != nil {
			t.Fatalf("ReplyTo = %v, %v; want nil, %v", got, err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, dhcp4test.ViewOf(t, got)); diff != "" {
		t.Errorf("ReplyTo (-want +got):\n%s", diff)
	}
}
