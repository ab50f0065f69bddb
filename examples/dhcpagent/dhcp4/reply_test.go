package dhcp4

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"

	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
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

// TestReplyOptions checks that the options follow the lease exactly: what
// the pool leaves unset is not sent, and the lease time is encoded as the
// 32-bit seconds of RFC 2132.
func TestReplyOptions(t *testing.T) {
	base := map[string]string{
		"1 subnet mask":   "255.255.255.0",
		"53 message type": "OFFER",
		"54 server id":    "10.77.0.2",
	}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name string
		spec func(*poolsource.PoolSpec)
		want map[string]string
	}{
		{
			name: "only the server: no router, DNS, NTP or names; default lease time",
			spec: func(s *poolsource.PoolSpec) {},
			want: with("51 lease time", "3600", "58 renewal time", "1800", "59 rebinding time", "3150"),
		},
		{
			name: "lease time rounds up to whole seconds",
			spec: func(s *poolsource.PoolSpec) { s.LeaseTime = poolsource.Duration(90*time.Second + time.Millisecond) },
			want: with("51 lease time", "91", "58 renewal time", "45", "59 rebinding time", "79"),
		},
		{
			name: "infinite lease: no renewal or rebinding time",
			spec: func(s *poolsource.PoolSpec) { s.LeaseTime = poolsource.Duration(leasestore.MaxLeaseTime) },
			want: with("51 lease time", "4294967295"),
		},
		{
			name: "1-second lease: no renewal or rebinding time",
			spec: func(s *poolsource.PoolSpec) { s.LeaseTime = poolsource.Duration(time.Second) },
			want: with("51 lease time", "1"),
		},
		{
			name: "largest finite lease",
			spec: func(s *poolsource.PoolSpec) { s.LeaseTime = poolsource.Duration(leasestore.MaxLeaseTime - time.Second) },
			want: with("51 lease time", "4294967294", "58 renewal time", "2147483647", "59 rebinding time", "3758096382"),
		},
		{
			name: "router and names; trailing dots dropped",
			spec: func(s *poolsource.PoolSpec) {
				s.Router, s.Domain, s.DomainSearch = "10.77.0.1", "lab.example.", []string{"lab.example.", "example"}
				s.LeaseTime = poolsource.Duration(time.Hour)
			},
			want: with("3 router", "10.77.0.1", "15 domain name", "lab.example", "119 domain search", "lab.example,example",
				"51 lease time", "3600", "58 renewal time", "1800", "59 rebinding time", "3150"),
		},
		{
			name: "a /30 pool",
			spec: func(s *poolsource.PoolSpec) {
				s.CIDR, s.ServerIP, s.LeaseTime = "10.77.0.8/30", "10.77.0.9", poolsource.Duration(time.Hour)
			},
			want: with("1 subnet mask", "255.255.255.252", "54 server id", "10.77.0.9",
				"51 lease time", "3600", "58 renewal time", "1800", "59 rebinding time", "3150"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &poolsource.Pool{Spec: poolsource.PoolSpec{IPPoolSpec: v1alpha1.IPPoolSpec{CIDR: "10.77.0.0/24", ServerIP: "10.77.0.2"}}}
			tt.spec(&p.Spec)
			p.Status.Allocated = map[string]string{"10.77.0.10": macA} // usable in the /30 too
			got, err := Reply(discover(t, macA), storeOf(t, p))
			if err != nil {
				t.Fatalf("Reply: %v", err)
			}
			if diff := cmp.Diff(tt.want, viewOf(t, got).Options); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplyIPv6Lease(t *testing.T) {
	prefix := netip.MustParsePrefix("2001:db8::/64")
	snap, problems := ipam.ParseAllocated(ipam.Spec{Prefix: prefix}, map[string]string{"2001:db8::10": macA})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	store, bproblems := leasestore.Build(snap, leasestore.Options{ServerIP: netip.MustParseAddr("2001:db8::2")})
	if len(bproblems) > 0 {
		t.Fatal(bproblems)
	}
	if got, err := Reply(discover(t, macA), store); !errors.Is(err, ErrNotIPv4) || got != nil {
		t.Fatalf("Reply = %v, %v; want nil, ErrNotIPv4", got, err)
	}
}

func TestLeaseSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want uint32
	}{
		{0, 3600},
		{-time.Second, 1},
		{time.Nanosecond, 1},
		{time.Second, 1},
		{time.Second + 1, 2},
		{10 * time.Minute, 600},
		{leasestore.MaxLeaseTime - time.Second, 1<<32 - 2},
		{leasestore.MaxLeaseTime - 1, 1<<32 - 1},
		{leasestore.MaxLeaseTime, 1<<32 - 1},
		{1<<63 - 1, 1<<32 - 1},
	}
	for _, tt := range tests {
		if got := LeaseSeconds(tt.d); got != tt.want {
			t.Errorf("LeaseSeconds(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

func TestDestination(t *testing.T) {
	udp := func(s string) *net.UDPAddr { return net.UDPAddrFromAddrPort(netip.MustParseAddrPort(s)) }
	offer := msg(t, macA, dhcpv4.MessageTypeOffer)
	nak := msg(t, macA, dhcpv4.MessageTypeNak)
	tests := []struct {
		name string
		req  *dhcpv4.DHCPv4
		resp *dhcpv4.DHCPv4
		peer net.Addr
		want string
	}{
		{"from 0.0.0.0: broadcast", discover(t, macA), offer, udp("255.255.255.255:68"), "255.255.255.255:68"},
		{"renewing: unicast to ciaddr", renewing(t, macA, addrA), offer, udp("10.77.0.10:68"), "10.77.0.10:68"},
		{"renewing via raw socket from 0.0.0.0: ciaddr", renewing(t, macA, addrA), offer, udp("255.255.255.255:68"), "10.77.0.10:68"},
		{"NAK to a renewing client: unicast to ciaddr, as Kea", renewing(t, macA, addrA), nak, udp("10.77.0.10:68"), "10.77.0.10:68"},
		{"NAK to a rebinding client (broadcast request): unicast to ciaddr", renewing(t, macA, addrA), nak, udp("255.255.255.255:68"), "10.77.0.10:68"},
		{"NAK in INIT-REBOOT: broadcast", initReboot(t, macA, addrB), nak, udp("255.255.255.255:68"), "255.255.255.255:68"},
		{"NAK in SELECTING: broadcast", selecting(t, macA, serverIP, addrB), nak, udp("255.255.255.255:68"), "255.255.255.255:68"},
		{"relayed NAK with ciaddr: to the relay, not ciaddr", msg(t, macA, dhcpv4.MessageTypeRequest, dhcpv4.WithClientIP(netIP(addrA)), dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))), nak, udp("10.0.0.1:67"), "10.0.0.1:67"},
		{"ACK to an INFORM: unicast to ciaddr", msg(t, macUnknown, dhcpv4.MessageTypeInform, dhcpv4.WithClientIP(netIP(addrA))), msg(t, macUnknown, dhcpv4.MessageTypeAck), udp("10.77.0.10:68"), "10.77.0.10:68"},
		{"relayed: to the relay", msg(t, macA, dhcpv4.MessageTypeDiscover, dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))), offer, udp("10.0.0.1:67"), "10.0.0.1:67"},
		{"relayed NAK: to the relay", msg(t, macA, dhcpv4.MessageTypeRequest, dhcpv4.WithGatewayIP(net.IPv4(10, 0, 0, 1))), nak, udp("10.0.0.1:67"), "10.0.0.1:67"},
		{"client on another port: back to it", discover(t, macA), offer, udp("127.0.0.1:40000"), "127.0.0.1:40000"},
		{"NAK to a client on another port: back to it", renewing(t, macA, addrA), nak, udp("127.0.0.1:40000"), "127.0.0.1:40000"},
		{"broadcast source on another port: broadcast to 68", discover(t, macA), offer, udp("255.255.255.255:40000"), "255.255.255.255:68"},
		{"not UDP: by the request alone", discover(t, macA), offer, &net.IPAddr{IP: net.IPv4(1, 2, 3, 4)}, "255.255.255.255:68"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Destination(tt.req, tt.resp, tt.peer).String(); got != tt.want {
				t.Errorf("Destination = %s, want %s", got, tt.want)
			}
		})
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
