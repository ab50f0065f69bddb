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
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

func TestReply(t *testing.T) {
	store := storeOf(t, labPool(labAllocated()))
	other := netip.MustParseAddr("10.77.0.254")
	tests := []struct {
		name    string
		req     *dhcpv4.DHCPv4
		want    view
		wantErr error
	}{
		{name: "discover known", req: discover(t, macA), want: offerView(macA, addrA)},
		{name: "discover second known", req: discover(t, macB), want: offerView(macB, addrB)},
		{name: "discover unknown", req: discover(t, macUnknown), wantErr: ErrUnknownClient},
		{
			name: "discover with broadcast flag",
			req:  msg(t, macA, dhcpv4.MessageTypeDiscover, dhcpv4.WithBroadcast(true)),
			want: func() view { v := offerView(macA, addrA); v.Broadcast = true; return v }(),
		},
		{name: "selecting, lease address", req: selecting(t, macA, serverIP, addrA), want: ackView(macA, "0.0.0.0", addrA)},
		{
			name: "selecting, another address",
			req:  selecting(t, macA, serverIP, addrB),
			want: nakView(macA, "10.77.0.11 is not leased to 52:54:00:aa:00:01"),
		},
		{name: "selecting, another server", req: selecting(t, macA, other, addrA), wantErr: ErrOtherServer},
		{
			name: "selecting, unknown, our server: authoritative NAK",
			req:  selecting(t, macUnknown, serverIP, addrA),
			want: nakView(macUnknown, "10.77.0.10 is not leased to 52:54:00:ff:ff:ff"),
		},
		{name: "selecting, unknown, another server", req: selecting(t, macUnknown, other, addrA), wantErr: ErrOtherServer},
		{name: "init-reboot, lease address", req: initReboot(t, macA, addrA), want: ackView(macA, "0.0.0.0", addrA)},
		{
			name: "init-reboot, another address",
			req:  initReboot(t, macA, netip.MustParseAddr("192.168.1.50")),
			want: nakView(macA, "192.168.1.50 is not leased to 52:54:00:aa:00:01"),
		},
		{
			name: "init-reboot, unknown, in the prefix: authoritative NAK",
			req:  initReboot(t, macUnknown, addrA),
			want: nakView(macUnknown, "10.77.0.10 is not leased to 52:54:00:ff:ff:ff"),
		},
		{
			name:    "init-reboot, unknown, outside the prefix",
			req:     initReboot(t, macUnknown, netip.MustParseAddr("192.168.1.50")),
			wantErr: ErrUnknownClient,
		},
		{name: "renewing, lease address", req: renewing(t, macA, addrA), want: ackView(macA, "10.77.0.10", addrA)},
		{
			name: "renewing, another address",
			req:  renewing(t, macA, addrA2),
			want: nakView(macA, "10.77.0.20 is not leased to 52:54:00:aa:00:01"),
		},
		{
			name: "renewing, unknown, in the prefix: authoritative NAK",
			req:  renewing(t, macUnknown, addrA),
			want: nakView(macUnknown, "10.77.0.10 is not leased to 52:54:00:ff:ff:ff"),
		},
		{
			name:    "renewing, unknown, outside the prefix",
			req:     renewing(t, macUnknown, netip.MustParseAddr("192.168.1.50")),
			wantErr: ErrUnknownClient,
		},
		{name: "request naming no address", req: msg(t, macA, dhcpv4.MessageTypeRequest), wantErr: ErrNoAddress},
		{
			name: "client identifier and relay info echoed",
			req: msg(t, macA, dhcpv4.MessageTypeDiscover,
				dhcpv4.WithOption(dhcpv4.OptClientIdentifier([]byte{1, 0x52, 0x54, 0, 0xaa, 0, 1})),
				dhcpv4.WithGeneric(dhcpv4.OptionRelayAgentInformation, []byte{1, 3, 'e', 't', '0'}),
				dhcpv4.WithGatewayIP(net.IPv4(10, 77, 0, 254))),
			want: func() view {
				v := offerView(macA, addrA)
				v.GIAddr = "10.77.0.254"
				v.Options["61 client id"] = "01525400aa0001"
				v.Options["82 relay agent info"] = "010365743" + "0"
				return v
			}(),
		},
		{
			name: "relayed NAK asks the relay to broadcast",
			req:  msg(t, macA, dhcpv4.MessageTypeRequest, dhcpv4.WithClientIP(netIP(addrB)), dhcpv4.WithGatewayIP(net.IPv4(10, 77, 0, 254))),
			want: func() view {
				v := nakView(macA, "10.77.0.11 is not leased to 52:54:00:aa:00:01")
				v.GIAddr, v.Broadcast = "10.77.0.254", true
				return v
			}(),
		},
		{name: "release", req: msg(t, macA, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(netIP(addrA))), wantErr: ErrMessageType},
		{name: "decline", req: msg(t, macA, dhcpv4.MessageTypeDecline), wantErr: ErrMessageType},
		{name: "no message type", req: msg(t, macA, dhcpv4.MessageTypeNone, dhcpv4.WithoutOption(dhcpv4.OptionDHCPMessageType)), wantErr: ErrMessageType},
		{
			name:    "a reply, not a request",
			req:     msg(t, macA, dhcpv4.MessageTypeOffer, func(d *dhcpv4.DHCPv4) { d.OpCode = dhcpv4.OpcodeBootReply }),
			wantErr: ErrNotRequest,
		},
		{
			name:    "not Ethernet",
			req:     msg(t, macA, dhcpv4.MessageTypeDiscover, dhcpv4.WithHWType(iana.HWTypeInfiniband)),
			wantErr: ErrHardwareAddr,
		},
		{
			name:    "8-byte hardware address",
			req:     msg(t, macA, dhcpv4.MessageTypeDiscover, dhcpv4.WithHwAddr(net.HardwareAddr{0x52, 0x54, 0, 0xaa, 0, 1, 0, 0})),
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
			if diff := cmp.Diff(tt.want, viewOf(t, got)); diff != "" {
				t.Errorf("Reply (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplyNoTable(t *testing.T) {
	if got, err := Reply(discover(t, macA), nil); !errors.Is(err, ErrNoTable) || got != nil {
		t.Fatalf("Reply on no table = %v, %v; want nil, ErrNoTable", got, err)
	}
	if got, err := Reply(nil, storeOf(t, labPool(labAllocated()))); !errors.Is(err, ErrNotRequest) || got != nil {
		t.Fatalf("Reply(nil) = %v, %v; want nil, ErrNotRequest", got, err)
	}
}

// FuzzReply feeds arbitrary packets to Reply: it must never panic, and a
// reply must serialize, parse back, and have a destination.
func FuzzReply(f *testing.F) {
	for _, m := range []*dhcpv4.DHCPv4{
		discover(f, macA), discover(f, macUnknown), selecting(f, macA, serverIP, addrA),
		selecting(f, macA, serverIP, addrB), initReboot(f, macA, addrA), renewing(f, macA, addrA2),
		msg(f, macA, dhcpv4.MessageTypeRequest, dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1)), dhcpv4.WithClientIP(netIP(addrB))),
		msg(f, macUnknown, dhcpv4.MessageTypeInform, dhcpv4.WithClientIP(netIP(addrA))),
		decline(f, macA, addrA),
		msg(f, macA, dhcpv4.MessageTypeRelease, dhcpv4.WithClientIP(netIP(addrA))),
	} {
		f.Add(m.ToBytes())
	}
	store := storeOf(f, labPool(labAllocated()))
	empty := tableOf(f, labPool(nil))
	held := TableOf(store)
	held.Probation, held.Now = probation.NewSet(time.Hour), time.Unix(1e9, 0)
	for l := range store.All() {
		held.Probation.Decline(leasestore.MustParseMAC(macUnknown), l.Addr, held.Now)
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
