package dhcp4

import (
	"bytes"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/rfc1035label"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The regression tests of the issue "dhcpagent replies can exceed what a
// client accepts": before the fix, Reply ignored the client's maximum DHCP
// message size, so a pool with 300 name servers and 200 search domains
// gave a 14 KB OFFER, and a request with a 10 KB relay agent information
// option a 15 KB reply.

func TestReplyFitsClientMaxMessageSize(t *testing.T) {
	store := storeOf(t, labtest.BigPool(dhcp4test.LabAllocated(), 300, 200))
	tests := []struct {
		name  string
		req   *dhcpv4.DHCPv4
		limit int
		typ   string
	}{
		{name: "no option 57: 576", req: dhcp4test.Discover(t, dhcp4test.MACA), limit: 576, typ: "OFFER"},
		{name: "option 57 below the minimum reads as 576", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(300)), limit: 576, typ: "OFFER"},
		{name: "option 57 of 576", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(576)), limit: 576, typ: "OFFER"},
		{name: "option 57 of 1500", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(1500)), limit: 1500, typ: "OFFER"},
		{name: "ACK, option 57 of 1500", req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRequest, dhcp4test.WithMaxSize(1500),
			dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(dhcp4test.NetIP(dhcp4test.AddrA)))), limit: 1500, typ: "ACK"},
		{name: "ACK to a renewal, no option 57", req: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), limit: 576, typ: "ACK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := Reply(tt.req, store)
			if err != nil {
				t.Fatalf("Reply: %v", err)
			}
			v := mustFit(t, resp, tt.limit, tt.typ)
			if v.Options["6 dns"] == "" {
				t.Errorf("no name server fits in %d bytes; options: %v", tt.limit, v.Options)
			}
		})
	}
}

func TestReplyFitsWithHugeRelayAgentInformation(t *testing.T) {
	store := storeOf(t, labtest.BigPool(dhcp4test.LabAllocated(), 300, 200))
	relay := dhcpv4.WithGatewayIP(net.IPv4(10, 77, 0, 254))
	tests := []struct {
		name  string
		req   *dhcpv4.DHCPv4
		limit int
		typ   string
	}{
		{name: "DISCOVER", req: dhcp4test.WithRawOption(t, dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, relay), 82, dhcp4test.RelayInfo(10_000)), limit: 576, typ: "OFFER"},
		{name: "DISCOVER, option 57 of 1500", req: dhcp4test.WithRawOption(t, dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, relay, dhcp4test.WithMaxSize(1500)), 82, dhcp4test.RelayInfo(10_000)), limit: 1500, typ: "OFFER"},
		{name: "REQUEST", req: dhcp4test.WithRawOption(t, dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA), 82, dhcp4test.RelayInfo(10_000)), limit: 576, typ: "ACK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := Reply(tt.req, store)
			if err != nil {
				t.Fatalf("Reply: %v", err)
			}
			mustFit(t, resp, tt.limit, tt.typ)
		})
	}
	t.Run("NAK", func(t *testing.T) {
		req := dhcp4test.WithRawOption(t, dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrB), 82, dhcp4test.RelayInfo(10_000))
		resp, err := Reply(req, store)
		if err != nil {
			t.Fatalf("Reply: %v", err)
		}
		if got := len(resp.ToBytes()) + udpIPv4Overhead; got > 576 {
			t.Fatalf("NAK is a %d-byte datagram, the client accepts 576", got)
		}
		want := dhcp4test.NakView(dhcp4test.MACA, "10.77.0.11 is not leased to 52:54:00:aa:00:01")
		if diff := cmp.Diff(want, clientView(t, resp)); diff != "" {
			t.Errorf("NAK (-want +got):\n%s", diff)
		}
	})
}

// TestReplyKeepsByPriority checks what a reply keeps when not everything
// fits, against the order Reply documents: the mandatory options, 82, 61,
// then 6, 15, 42, 119.
//
// The arithmetic at 576: the options field holds 548 - 240 - 1 (the end
// option) = 307 bytes, 304 beside the 3 of option 52; the mandatory
// options of the lab pool take 39, which leaves 265. 300 name servers then
// get 65 there (260 bytes, two instances: 264), 31 in the file field (126)
// and 15 in sname (62): 111.
func TestReplyKeepsByPriority(t *testing.T) {
	lab := storeOf(t, labtest.Pool(dhcp4test.LabAllocated()))
	big := storeOf(t, labtest.BigPool(dhcp4test.LabAllocated(), 300, 200))
	dns70 := storeOf(t, labtest.BigPool(dhcp4test.LabAllocated(), 70, 2))
	relay := func(n int) dhcpv4.Modifier {
		return dhcpv4.WithGeneric(dhcpv4.OptionRelayAgentInformation, dhcp4test.RelayInfo(n)[:n])
	}
	clientID := func(n int) dhcpv4.Modifier {
		return dhcpv4.WithGeneric(dhcpv4.OptionClientIdentifier, bytes.Repeat([]byte{7}, n))
	}
	tests := []struct {
		name     string
		store    *leasestore.Store
		req      *dhcpv4.DHCPv4
		want     []Cut
		overload byte // the option overload value the reply carries
	}{
		{name: "lab pool: everything fits", store: lab, req: dhcp4test.Discover(t, dhcp4test.MACA)},
		{
			name:  "300 name servers and 200 search domains at 576: name servers over all three fields",
			store: big, req: dhcp4test.Discover(t, dhcp4test.MACA), overload: 3,
			want: []Cut{{Code: 6, Kept: 111, Of: 300}, {Code: 15, Kept: 0, Of: 1}, {Code: 42, Kept: 0, Of: 1}, {Code: 119, Kept: 0, Of: 200}},
		},
		{
			name:  "the same at 1500: all name servers, some search domains",
			store: big, req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(1500)), overload: 3,
			want: []Cut{{Code: 119, Kept: 2, Of: 200}},
		},
		{name: "70 name servers and 2 search domains at 576: all of it, with overload", store: dns70, req: dhcp4test.Discover(t, dhcp4test.MACA), overload: 3},
		{
			name:  "a smaller option further down fits where a larger one did not",
			store: big, req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, relay(300), clientID(20)), overload: 3,
			want: []Cut{{Code: 82, Kept: 0, Of: 1}, {Code: 6, Kept: 106, Of: 300}, {Code: 15, Kept: 0, Of: 1}, {Code: 42, Kept: 0, Of: 1}, {Code: 119, Kept: 0, Of: 200}},
		},
		{
			name:  "relay agent information kept before name servers",
			store: big, req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, relay(200)), overload: 3,
			want: []Cut{{Code: 6, Kept: 61, Of: 300}, {Code: 15, Kept: 0, Of: 1}, {Code: 42, Kept: 0, Of: 1}, {Code: 119, Kept: 0, Of: 200}},
		},
		{
			name:  "relay agent information too large: dropped whole, the rest as without it",
			store: big, req: dhcp4test.WithRawOption(t, dhcp4test.Discover(t, dhcp4test.MACA), 82, dhcp4test.RelayInfo(10_000)), overload: 3,
			want: []Cut{{Code: 82, Kept: 0, Of: 1}, {Code: 6, Kept: 111, Of: 300}, {Code: 15, Kept: 0, Of: 1}, {Code: 42, Kept: 0, Of: 1}, {Code: 119, Kept: 0, Of: 200}},
		},
		{
			name:  "client identifier after relay agent information",
			store: big, req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, relay(200), clientID(80)), overload: 3,
			want: []Cut{{Code: 61, Kept: 0, Of: 1}, {Code: 6, Kept: 61, Of: 300}, {Code: 15, Kept: 0, Of: 1}, {Code: 42, Kept: 0, Of: 1}, {Code: 119, Kept: 0, Of: 200}},
		},
		{
			name:  "client identifier kept before name servers",
			store: big, req: dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, clientID(80)), overload: 3,
			want: []Cut{{Code: 6, Kept: 91, Of: 300}, {Code: 15, Kept: 0, Of: 1}, {Code: 42, Kept: 0, Of: 1}, {Code: 119, Kept: 0, Of: 200}},
		},
		{
			name:  "NAK: relay agent information dropped, message kept",
			store: big, req: dhcp4test.WithRawOption(t, dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrB), 82, dhcp4test.RelayInfo(10_000)),
			want: []Cut{{Code: 82, Kept: 0, Of: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, trim, err := ReplyWithTrim(tt.req, tt.store)
			if err != nil {
				t.Fatalf("Reply: %v", err)
			}
			if diff := cmp.Diff(Trim{Limit: dhcp4wire.ReplyLimit(tt.req), Cuts: tt.want}, trim); diff != "" {
				t.Errorf("Trim (-want +got):\n%s", diff)
			}
			opts, overload, err := dhcp4test.ClientOptions(resp.ToBytes())
			if err != nil {
				t.Fatalf("reply does not parse as a client parses it: %v", err)
			}
			if overload != tt.overload {
				t.Errorf("option overload %d, want %d", overload, tt.overload)
			}
			if got, limit := len(resp.ToBytes()), dhcp4wire.ReplyLimit(tt.req); got > limit {
				t.Errorf("reply of %d bytes, limit %d", got, limit)
			}
			checkAgainstLease(t, tt.req, tt.store, opts, trim)
		})
	}
}

// TestReplyUsesClientMaxMessageSize: a client that advertises 1500 bytes
// gets more of the pool's options than one that advertises nothing.
func TestReplyUsesClientMaxMessageSize(t *testing.T) {
	store := storeOf(t, labtest.BigPool(dhcp4test.LabAllocated(), 300, 200))
	kept := func(req *dhcpv4.DHCPv4) (options, entries int) {
		resp, err := Reply(req, store)
		if err != nil {
			t.Fatalf("Reply: %v", err)
		}
		opts, _, err := dhcp4test.ClientOptions(resp.ToBytes())
		if err != nil {
			t.Fatal(err)
		}
		for code, v := range opts {
			options++
			switch code {
			case 6, 42:
				entries += len(v) / 4
			case 119:
				l, err := rfc1035label.FromBytes(v)
				if err != nil {
					t.Fatal(err)
				}
				entries += len(l.Labels)
			default:
				entries++
			}
		}
		return options, entries
	}
	small, smallEntries := kept(dhcp4test.Discover(t, dhcp4test.MACA))
	large, largeEntries := kept(dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(1500)))
	if large <= small || largeEntries <= smallEntries {
		t.Errorf("at 1500 bytes: %d options, %d entries; at 576: %d options, %d entries: want more at 1500",
			large, largeEntries, small, smallEntries)
	}
}
