package dhcp4

import (
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

func TestReply(t *testing.T) {
	store := storeOf(t, labtest.Pool(dhcp4test.LabAllocated()))
	other := netip.MustParseAddr("10.77.0.254")
	tests := []struct {
		name    string
		req     *dhcpv4.DHCPv4
		want    dhcp4test.View
		wantErr error
	}{
		{name: "discover known", req: dhcp4test.Discover(t, dhcp4test.MACA), want: dhcp4test.OfferView(dhcp4test.MACA, dhcp4test.AddrA)},
		{name: "discover second known", req: dhcp4test.Discover(t, dhcp4test.MACB), want: dhcp4test.OfferView(dhcp4test.MACB, dhcp4test.AddrB)},
		{name: "discover unknown", req: dhcp4test.Discover(t, dhcp4test.MACUnknown), wantErr: ErrUnknownClient},
		{
			name: "discover with broadcast flag",
			req:  dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcpv4.WithBroadcast(true)),
			want: func() dhcp4test.View {
				v := dhcp4test.OfferView(dhcp4test.MACA, dhcp4test.AddrA)
				v.Broadcast = true
				return v
			}(),
		},
		{name: "selecting, lease address", req: dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA), want: dhcp4test.AckView(dhcp4test.MACA, "0.0.0.0", dhcp4test.AddrA)},
		{
			name: "selecting, another address",
			req:  dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrB),
			want: dhcp4test.NakView(dhcp4test.MACA, "10.77.0.11 is not leased to 52:54:00:aa:00:01"),
		},
		{name: "selecting, another server", req: dhcp4test.Selecting(t, dhcp4test.MACA, other, dhcp4test.AddrA), wantErr: ErrOtherServer},
		{
			name: "selecting, unknown, our server: authoritative NAK",
			req:  dhcp4test.Selecting(t, dhcp4test.MACUnknown, dhcp4test.ServerIP, dhcp4test.AddrA),
			want: dhcp4test.NakView(dhcp4test.MACUnknown, "10.77.0.10 is not leased to 52:54:00:ff:ff:ff"),
		},
		{name: "selecting, unknown, another server", req: dhcp4test.Selecting(t, dhcp4test.MACUnknown, other, dhcp4test.AddrA), wantErr: ErrOtherServer},
		{name: "init-reboot, lease address", req: dhcp4test.InitReboot(t, dhcp4test.MACA, dhcp4test.AddrA), want: dhcp4test.AckView(dhcp4test.MACA, "0.0.0.0", dhcp4test.AddrA)},
		{
			name: "init-reboot, another address",
			req:  dhcp4test.InitReboot(t, dhcp4test.MACA, netip.MustParseAddr("192.168.1.50")),
			want: dhcp4test.NakView(dhcp4test.MACA, "192.168.1.50 is not leased to 52:54:00:aa:00:01"),
		},
		{
			name: "init-reboot, unknown, in the prefix: authoritative NAK",
			req:  dhcp4test.InitReboot(t, dhcp4test.MACUnknown, dhcp4test.AddrA),
			want: dhcp4test.NakView(dhcp4test.MACUnknown, "10.77.0.10 is not leased to 52:54:00:ff:ff:ff"),
		},
		{
			name:    "init-reboot, unknown, outside the prefix",
			req:     dhcp4test.InitReboot(t, dhcp4test.MACUnknown, netip.MustParseAddr("192.168.1.50")),
			wantErr: ErrUnknownClient,
		},
		{name: "renewing, lease address", req: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), want: dhcp4test.AckView(dhcp4test.MACA, "10.77.0.10", dhcp4test.AddrA)},
		{
			name: "renewing, another address",
			req:  dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA2),
			want: dhcp4test.NakView(dhcp4test.MACA, "10.77.0.20 is not leased to 52:54:00:aa:00:01"),
		},
		{
			name: "renewing, unknown, in the prefix: authoritative NAK",
			req:  dhcp4test.Renewing(t, dhcp4test.MACUnknown, dhcp4test.AddrA),
			want: dhcp4test.NakView(dhcp4test.MACUnknown, "10.77.0.10 is not leased to 52:54:00:ff:ff:ff"),
		},
		{
			name:    "renewing, unknown, outside the prefix",
			req:     dhcp4test.Renewing(t, dhcp4test.MACUnknown, netip.MustParseAddr("192.168.1.50")),
			wantErr: ErrUnknownClient,
		},
		{name: "request naming no address", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRequest), wantErr: ErrNoAddress},
		{
			name: "client identifier and relay info echoed",
			req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover,
				dhcpv4.WithOption(dhcpv4.OptClientIdentifier([]byte{1, 0x52, 0x54, 0, 0xaa, 0, 1})),
				dhcpv4.WithGeneric(dhcpv4.OptionRelayAgentInformation, []byte{1, 3, 'e', 't', '0'}),
				dhcpv4.WithGatewayIP(net.IPv4(10, 77, 0, 254))),
			want: func() dhcp4test.View {
				v := dhcp4test.OfferView(dhcp4test.MACA, dhcp4test.AddrA)
				v.GIAddr = "10.77.0.254"
				v.Options["61 client id"] = "01525400aa0001"
				v.Options["82 relay agent info"] = "010365743" + "0"
				return v
			}(),
		},
		{
			name: "relayed NAK asks the relay to broadcast",
			req:  dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRequest, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrB)), dhcpv4.WithGatewayIP(net.IPv4(10, 77, 0, 254))),
			want: func() dhcp4test.View {
				v := dhcp4test.NakView(dhcp4test.MACA, "10.77.0.11 is not leased to 52:54:00:aa:00:01")
				v.GIAddr, v.Broadcast = "10.77.0.254", true
				return v
			}(),
		},
		{name: "release", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA))), wantErr: ErrMessageType},
		{name: "decline", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDecline), wantErr: ErrMessageType},
		{name: "no message type", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeNone, dhcpv4.WithoutOption(dhcpv4.OptionDHCPMessageType)), wantErr: ErrMessageType},
		{
			name:    "a reply, not a request",
			req:     dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeOffer, func(d *dhcpv4.DHCPv4) { d.OpCode = dhcpv4.OpcodeBootReply }),
			wantErr: ErrNotRequest,
		},
		{
			name:    "not Ethernet",
			req:     dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcpv4.WithHWType(iana.HWTypeInfiniband)),
			wantErr: ErrHardwareAddr,
		},
		{
			name:    "8-byte hardware address",
			req:     dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcpv4.WithHwAddr(net.HardwareAddr{0x52, 0x54, 0, 0xaa, 0, 1, 0, 0})),
			wantErr: ErrHardwareAddr,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Reply(tt.req, store)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || got != nil {
					t.Fatalf("Reply = %v, %v; want nil, %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Reply: %v", err)
			}
			if diff := cmp.Diff(tt.want, dhcp4test.ViewOf(t, got)); diff != "" {
				t.Errorf("Reply (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplyNoTable(t *testing.T) {
	if got, err := Reply(dhcp4test.Discover(t, dhcp4test.MACA), nil); !errors.Is(err, ErrNoTable) || got != nil {
		t.Fatalf("Reply on no table = %v, %v; want nil, ErrNoTable", got, err)
	}
	if got, err := Reply(nil, storeOf(t, labtest.Pool(dhcp4test.LabAllocated()))); !errors.Is(err, ErrNotRequest) || got != nil {
		t.Fatalf("Reply(nil) = %v, %v; want nil, ErrNotRequest", got, err)
	}
}

// FuzzReply feeds arbitrary packets to Reply: it must never panic, and a
// reply must serialize, parse back, and have a destination.
func FuzzReply(f *testing.F) {
	for _, m := range []*dhcpv4.DHCPv4{
		dhcp4test.Discover(f, dhcp4test.MACA), dhcp4test.Discover(f, dhcp4test.MACUnknown), dhcp4test.Selecting(f, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA),
		dhcp4test.Selecting(f, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrB), dhcp4test.InitReboot(f, dhcp4test.MACA, dhcp4test.AddrA), dhcp4test.Renewing(f, dhcp4test.MACA, dhcp4test.AddrA2),
		dhcp4test.Message(f, dhcp4test.MACA, dhcpv4.MessageTypeRequest, dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1)), dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrB))),
		dhcp4test.Message(f, dhcp4test.MACUnknown, dhcpv4.MessageTypeInform, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA))),
		dhcp4test.Decline(f, dhcp4test.MACA, dhcp4test.AddrA),
		dhcp4test.Message(f, dhcp4test.MACA, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(dhcp4test.NetIP(dhcp4test.AddrA))),
	} {
		f.Add(m.ToBytes())
	}
	store := storeOf(f, labtest.Pool(dhcp4test.LabAllocated()))
	empty := tableOf(f, labtest.Pool(nil))
	held := TableOf(store)
	held.Probation, held.Now = probation.NewSet(time.Hour), time.Unix(1e9, 0)
	for l := range store.All() {
		held.Probation.Decline(leasestore.MustParseMAC(dhcp4test.MACUnknown), l.Addr, held.Now)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := dhcpv4.FromBytes(b)
		if err != nil {
			return
		}
		// The other decisions take any message too, without a panic, and
		// a table with every address held or with no lease answers at
		// most what the full one does.
		Declined(req, TableOf(store))
		Released(req, TableOf(store))
		if resp, _, _ := ReplyTo(req, held); resp != nil && resp.MessageType() == dhcpv4.MessageTypeOffer {
			t.Fatalf("OFFER of %s with every address on probation", resp.YourIPAddr)
		}
		if resp, _, _ := ReplyTo(req, empty); resp != nil && resp.MessageType() != dhcpv4.MessageTypeNak &&
			!(resp.MessageType() == dhcpv4.MessageTypeAck && resp.YourIPAddr.IsUnspecified()) {
			t.Fatalf("%s of %s from a table without leases", resp.MessageType(), resp.YourIPAddr)
		}
		resp, err := Reply(req, store)
		if (resp == nil) == (err == nil) {
			t.Fatalf("Reply = %v, %v: want exactly one of a reply and an error", resp, err)
		}
		if resp == nil {
			return
		}
		if _, err := dhcpv4.FromBytes(resp.ToBytes()); err != nil {
			t.Fatalf("reply does not parse back: %v", err)
		}
		if Destination(req, resp, &net.UDPAddr{IP: net.IPv4bcast, Port: 68}) == nil {
			t.Fatal("no destination")
		}
	})
}
