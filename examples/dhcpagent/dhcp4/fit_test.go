package dhcp4

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"

	"bytes"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/rfc1035label"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The regression tests of the issue "dhcpagent replies can exceed what a
// client accepts": before the fix, Reply ignored the client's maximum DHCP
// message size, so a pool with 300 name servers and 200 search domains
// gave a 14 KB OFFER, and a request with a 10 KB relay agent information
// option a 15 KB reply.

// bigPool is the lab pool with n name servers and m search domains (see
// dhcp4test.Enlarge).
func bigPool(allocated map[string]string, n, m int) *poolsource.Pool {
	p := labPool(allocated)
	dhcp4test.Enlarge(&p.Spec.IPPoolSpec, n, m)
	return p
}

// udpIPv4Overhead is what the IPv4 datagram (20-byte header) and the UDP
// header (8) add to a DHCP message; the client's option 57 and the
// 576-byte minimum count them (see ReplyLimit).
const udpIPv4Overhead = 28

// clientView is what a client that honours option overload reads from a
// reply: the view of the header, and every option decoded (see
// decodeOption), wherever it was carried.
func clientView(t testing.TB, m *dhcpv4.DHCPv4) view {
	t.Helper()
	wire := m.ToBytes()
	opts, _, err := clientOptions(wire)
	if err != nil {
		t.Fatalf("reply does not parse as a client parses it: %v", err)
	}
	v := viewOf(t, &dhcpv4.DHCPv4{
		OpCode: m.OpCode, HWType: m.HWType, TransactionID: m.TransactionID, Flags: m.Flags,
		ClientIPAddr: m.ClientIPAddr, YourIPAddr: m.YourIPAddr, ServerIPAddr: m.ServerIPAddr,
		GatewayIPAddr: m.GatewayIPAddr, ClientHWAddr: m.ClientHWAddr, Options: dhcpv4.Options{},
	})
	for code, raw := range opts {
		name, val := dhcp4test.DecodeOption(code, raw)
		v.Options[name] = val
	}
	return v
}

// mandatory are the options every OFFER and ACK of the lab pool keeps,
// whatever the limit.
func mandatory(typ string) map[string]string {
	o := labOptions(typ)
	for _, k := range []string{"6 dns", "15 domain name", "42 ntp", "119 domain search"} {
		delete(o, k)
	}
	return o
}

// mustFit fails t unless the reply's wire form fits in limit bytes once
// the IPv4 and UDP headers are added, and carries the mandatory options.
func mustFit(t *testing.T, resp *dhcpv4.DHCPv4, limit int, typ string) view {
	t.Helper()
	if got := len(resp.ToBytes()) + udpIPv4Overhead; got > limit {
		t.Fatalf("%s is a %d-byte datagram, the client accepts %d", typ, got, limit)
	}
	v := clientView(t, resp)
	got := map[string]string{}
	for k := range mandatory(typ) {
		got[k] = v.Options[k]
	}
	if diff := cmp.Diff(mandatory(typ), got); diff != "" {
		t.Errorf("mandatory options of the %s (-want +got):\n%s", typ, diff)
	}
	return v
}

func TestReplyFitsClientMaxMessageSize(t *testing.T) {
	store := storeOf(t, bigPool(labAllocated(), 300, 200))
	tests := []struct {
		name  string
		req   *dhcpv4.DHCPv4
		limit int
		typ   string
	}{
		{name: "no option 57: 576", req: discover(t, macA), limit: 576, typ: "OFFER"},
		{name: "option 57 below the minimum reads as 576", req: msg(t, macA, dhcpv4.MessageTypeDiscover, withMaxSize(300)), limit: 576, typ: "OFFER"},
		{name: "option 57 of 576", req: msg(t, macA, dhcpv4.MessageTypeDiscover, withMaxSize(576)), limit: 576, typ: "OFFER"},
		{name: "option 57 of 1500", req: msg(t, macA, dhcpv4.MessageTypeDiscover, withMaxSize(1500)), limit: 1500, typ: "OFFER"},
		{name: "ACK, option 57 of 1500", req: msg(t, macA, dhcpv4.MessageTypeRequest, withMaxSize(1500),
			dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(addrA)))), limit: 1500, typ: "ACK"},
		{name: "ACK to a renewal, no option 57", req: renewing(t, macA, addrA), limit: 576, typ: "ACK"},
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
	store := storeOf(t, bigPool(labAllocated(), 300, 200))
	relay := dhcpv4.WithGatewayIP(net.IPv4(10, 77, 0, 254))
	tests := []struct {
		name  string
		req   *dhcpv4.DHCPv4
		limit int
		typ   string
	}{
		{name: "DISCOVER", req: withRawOption(t, msg(t, macA, dhcpv4.MessageTypeDiscover, relay), 82, relayInfo(10_000)), limit: 576, typ: "OFFER"},
		{name: "DISCOVER, option 57 of 1500", req: withRawOption(t, msg(t, macA, dhcpv4.MessageTypeDiscover, relay, withMaxSize(1500)), 82, relayInfo(10_000)), limit: 1500, typ: "OFFER"},
		{name: "REQUEST", req: withRawOption(t, selecting(t, macA, serverIP, addrA), 82, relayInfo(10_000)), limit: 576, typ: "ACK"},
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
		req := withRawOption(t, selecting(t, macA, serverIP, addrB), 82, relayInfo(10_000))
		resp, err := Reply(req, store)
		if err != nil {
			t.Fatalf("Reply: %v", err)
		}
		if got := len(resp.ToBytes()) + udpIPv4Overhead; got > 576 {
			t.Fatalf("NAK is a %d-byte datagram, the client accepts 576", got)
		}
		want := nakView(macA, "10.77.0.11 is not leased to 52:54:00:aa:00:01")
		if diff := cmp.Diff(want, clientView(t, resp)); diff != "" {
			t.Errorf("NAK (-want +got):\n%s", diff)
		}
	})
}

func TestReplyLimit(t *testing.T) {
	tests := []struct {
		name string
		req  *dhcpv4.DHCPv4
		want int
	}{
		{name: "no option 57", req: discover(t, macA), want: 548},
		{name: "576", req: msg(t, macA, dhcpv4.MessageTypeDiscover, withMaxSize(576)), want: 548},
		{name: "below the minimum", req: msg(t, macA, dhcpv4.MessageTypeDiscover, withMaxSize(575)), want: 548},
		{name: "zero", req: msg(t, macA, dhcpv4.MessageTypeDiscover, withMaxSize(0)), want: 548},
		{name: "1500", req: msg(t, macA, dhcpv4.MessageTypeDiscover, withMaxSize(1500)), want: 1472},
		{name: "largest", req: msg(t, macA, dhcpv4.MessageTypeDiscover, withMaxSize(65535)), want: 65507},
		{name: "3 bytes long: malformed, absent", req: msg(t, macA, dhcpv4.MessageTypeDiscover,
			dhcpv4.WithGeneric(dhcpv4.OptionMaximumDHCPMessageSize, []byte{5, 220, 0})), want: 548},
		{name: "no request", req: nil, want: 548},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReplyLimit(tt.req); got != tt.want {
				t.Errorf("ReplyLimit = %d, want %d", got, tt.want)
			}
		})
	}
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
	lab := storeOf(t, labPool(labAllocated()))
	big := storeOf(t, bigPool(labAllocated(), 300, 200))
	dns70 := storeOf(t, bigPool(labAllocated(), 70, 2))
	relay := func(n int) dhcpv4.Modifier {
		return dhcpv4.WithGeneric(dhcpv4.OptionRelayAgentInformation, relayInfo(n)[:n])
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
		{name: "lab pool: everything fits", store: lab, req: discover(t, macA)},
		{
			name:  "300 name servers and 200 search domains at 576: name servers over all three fields",
			store: big, req: discover(t, macA), overload: 3,
			want: []Cut{{6, 111, 300}, {15, 0, 1}, {42, 0, 1}, {119, 0, 200}},
		},
		{
			name:  "the same at 1500: all name servers, some search domains",
			store: big, req: msg(t, macA, dhcpv4.MessageTypeDiscover, withMaxSize(1500)), overload: 3,
			want: []Cut{{119, 2, 200}},
		},
		{name: "70 name servers and 2 search domains at 576: all of it, with overload", store: dns70, req: discover(t, macA), overload: 3},
		{
			name:  "a smaller option further down fits where a larger one did not",
			store: big, req: msg(t, macA, dhcpv4.MessageTypeDiscover, relay(300), clientID(20)), overload: 3,
			want: []Cut{{82, 0, 1}, {6, 106, 300}, {15, 0, 1}, {42, 0, 1}, {119, 0, 200}},
		},
		{
			name:  "relay agent information kept before name servers",
			store: big, req: msg(t, macA, dhcpv4.MessageTypeDiscover, relay(200)), overload: 3,
			want: []Cut{{6, 61, 300}, {15, 0, 1}, {42, 0, 1}, {119, 0, 200}},
		},
		{
			name:  "relay agent information too large: dropped whole, the rest as without it",
			store: big, req: withRawOption(t, discover(t, macA), 82, relayInfo(10_000)), overload: 3,
			want: []Cut{{82, 0, 1}, {6, 111, 300}, {15, 0, 1}, {42, 0, 1}, {119, 0, 200}},
		},
		{
			name:  "client identifier after relay agent information",
			store: big, req: msg(t, macA, dhcpv4.MessageTypeDiscover, relay(200), clientID(80)), overload: 3,
			want: []Cut{{61, 0, 1}, {6, 61, 300}, {15, 0, 1}, {42, 0, 1}, {119, 0, 200}},
		},
		{
			name:  "client identifier kept before name servers",
			store: big, req: msg(t, macA, dhcpv4.MessageTypeDiscover, clientID(80)), overload: 3,
			want: []Cut{{6, 91, 300}, {15, 0, 1}, {42, 0, 1}, {119, 0, 200}},
		},
		{
			name:  "NAK: relay agent information dropped, message kept",
			store: big, req: withRawOption(t, selecting(t, macA, serverIP, addrB), 82, relayInfo(10_000)),
			want: []Cut{{82, 0, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, trim, err := ReplyWithTrim(tt.req, tt.store)
			if err != nil {
				t.Fatalf("Reply: %v", err)
			}
			if diff := cmp.Diff(Trim{Limit: ReplyLimit(tt.req), Cuts: tt.want}, trim); diff != "" {
				t.Errorf("Trim (-want +got):\n%s", diff)
			}
			opts, overload, err := clientOptions(resp.ToBytes())
			if err != nil {
				t.Fatalf("reply does not parse as a client parses it: %v", err)
			}
			if overload != tt.overload {
				t.Errorf("option overload %d, want %d", overload, tt.overload)
			}
			if got, limit := len(resp.ToBytes()), ReplyLimit(tt.req); got > limit {
				t.Errorf("reply of %d bytes, limit %d", got, limit)
			}
			checkAgainstLease(t, tt.req, tt.store, opts, trim)
		})
	}
}

// checkAgainstLease checks that the options a client reads from a reply
// to req are those of the lease (or the NAK) and the echoes, each whole or
// a prefix of its entries, and that trim says exactly which are not whole.
func checkAgainstLease(t testing.TB, req *dhcpv4.DHCPv4, store *leasestore.Store, got map[uint8][]byte, trim Trim) {
	t.Helper()
	lease, ok := store.Lookup(leasestore.MustParseMAC(req.ClientHWAddr.String()))
	if !ok {
		t.Fatalf("no lease for %s", req.ClientHWAddr)
	}
	full := map[uint8][]byte{}
	entries := map[uint8]func([]byte) (int, bool){} // entries in a value, and whether it is a prefix of the full one
	typ := dhcpv4.MessageType(got[53][0])
	if typ == dhcpv4.MessageTypeNak {
		asked := req.RequestedIPAddress()
		if asked == nil {
			asked = req.ClientIPAddr
		}
		full[53], full[54] = []byte{byte(typ)}, serverIP.AsSlice()
		full[56] = fmt.Appendf(nil, "%s is not leased to %s", asked, req.ClientHWAddr)
	} else {
		for _, o := range LeaseOptions(lease) {
			full[o.Code.Code()] = o.Value.ToBytes()
		}
		full[53] = []byte{byte(typ)}
	}
	for _, code := range []uint8{82, 61} {
		if v := req.Options.Get(dhcpv4.GenericOptionCode(code)); v != nil {
			full[code] = v
		}
	}
	for _, code := range []uint8{6, 42} {
		entries[code] = func(v []byte) (int, bool) {
			return len(v) / 4, len(v)%4 == 0 && bytes.HasPrefix(full[code], v)
		}
	}
	entries[119] = func(v []byte) (int, bool) {
		names, err := rfc1035label.FromBytes(v)
		if err != nil {
			return 0, false
		}
		all, _ := rfc1035label.FromBytes(full[119])
		return len(names.Labels), len(names.Labels) <= len(all.Labels) &&
			cmp.Equal(names.Labels, all.Labels[:len(names.Labels)])
	}
	count := func(code uint8, v []byte) int {
		if f, ok := entries[code]; ok {
			n, _ := f(v)
			return n
		}
		return 1
	}
	cuts := map[uint8]Cut{}
	for code, want := range full {
		v, ok := got[code]
		switch {
		case !ok:
			cuts[code] = Cut{Code: code, Kept: 0, Of: count(code, want)}
		case bytes.Equal(v, want):
		default:
			f, list := entries[code]
			n, prefix := 0, false
			if list {
				n, prefix = f(v)
			}
			if !prefix || n == 0 {
				t.Errorf("option %d is %x, not a prefix of %x", code, v, want)
				continue
			}
			cuts[code] = Cut{Code: code, Kept: n, Of: count(code, want)}
		}
	}
	for code := range got {
		if _, ok := full[code]; !ok {
			t.Errorf("option %d in the reply is neither the lease's nor an echo", code)
		}
	}
	for _, code := range []uint8{53, 54, 51, 58, 59, 1, 3} {
		if _, ok := cuts[code]; ok {
			t.Errorf("mandatory option %d left out", code)
		}
	}
	want := map[uint8]Cut{}
	for _, c := range trim.Cuts {
		want[c.Code] = c
	}
	if diff := cmp.Diff(want, cuts); diff != "" {
		t.Errorf("what the reply left out, from Trim (-) and read from the reply (+):\n%s", diff)
	}
}

// TestReplyUsesClientMaxMessageSize: a client that advertises 1500 bytes
// gets more of the pool's options than one that advertises nothing.
func TestReplyUsesClientMaxMessageSize(t *testing.T) {
	store := storeOf(t, bigPool(labAllocated(), 300, 200))
	kept := func(req *dhcpv4.DHCPv4) (options, entries int) {
		resp, err := Reply(req, store)
		if err != nil {
			t.Fatalf("Reply: %v", err)
		}
		opts, _, err := clientOptions(resp.ToBytes())
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
	small, smallEntries := kept(discover(t, macA))
	large, largeEntries := kept(msg(t, macA, dhcpv4.MessageTypeDiscover, withMaxSize(1500)))
	if large <= small || largeEntries <= smallEntries {
		t.Errorf("at 1500 bytes: %d options, %d entries; at 576: %d options, %d entries: want more at 1500",
			large, largeEntries, small, smallEntries)
	}
}

// fitCase is one pool and request of FuzzReplyFits.
type fitCase struct {
	dns, ntp, search    int    // entries of the lists
	domainLen, nameLen  int    // bytes of the domain name and of each search name
	router              bool   // the pool has a router
	leaseSecs           uint32 // 0: the default
	maxSize             uint16 // option 57; 0: absent
	relayLen, clientLen int    // bytes of the request's 82 and 61; 0: absent
	kind                byte   // 0: DISCOVER, 1: REQUEST for the lease's address, 2: for another one
}

// name is a valid domain name of about n bytes (at least 1, at most 253).
func fuzzName(n, i int) string {
	n = min(max(n, 1), 253)
	var labels []string
	for left := n; left > 0; left -= 64 {
		labels = append(labels, strings.Repeat(string(rune('a'+(i+len(labels))%26)), min(left, 63)))
	}
	return strings.Join(labels, ".")
}

func (c fitCase) build(t testing.TB) (*dhcpv4.DHCPv4, *leasestore.Store) {
	t.Helper()
	opts := leasestore.Options{ServerIP: serverIP, LeaseTime: time.Duration(c.leaseSecs) * time.Second}
	if c.router {
		opts.Router = netip.MustParseAddr("10.77.0.1")
	}
	for i := range c.dns {
		opts.DNS = append(opts.DNS, netip.AddrFrom4([4]byte{10, 88, byte(i >> 8), byte(i)}))
	}
	for i := range c.ntp {
		opts.NTP = append(opts.NTP, netip.AddrFrom4([4]byte{10, 89, byte(i >> 8), byte(i)}))
	}
	if c.domainLen > 0 {
		opts.DomainName = fuzzName(c.domainLen, 0)
	}
	for i := range c.search {
		opts.DomainSearch = append(opts.DomainSearch, fuzzName(c.nameLen, i))
	}
	spec := ipam.Spec{Prefix: netip.MustParsePrefix("10.77.0.0/24"), Reserved: []netip.Addr{serverIP}}
	snap, problems := ipam.ParseAllocated(spec, labAllocated())
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	store, _ := leasestore.Build(snap, opts)

	var mods []dhcpv4.Modifier
	if c.maxSize > 0 {
		mods = append(mods, withMaxSize(c.maxSize))
	}
	if c.clientLen > 0 {
		mods = append(mods, dhcpv4.WithGeneric(dhcpv4.OptionClientIdentifier, bytes.Repeat([]byte{1}, c.clientLen)))
	}
	var req *dhcpv4.DHCPv4
	switch c.kind % 3 {
	case 0:
		req = msg(t, macA, dhcpv4.MessageTypeDiscover, mods...)
	case 1:
		req = msg(t, macA, dhcpv4.MessageTypeRequest, append(mods, dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(addrA))))...)
	case 2:
		req = msg(t, macA, dhcpv4.MessageTypeRequest, append(mods, dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(addrB))))...)
	}
	if c.relayLen > 0 {
		req = withRawOption(t, req, 82, relayInfo(c.relayLen)[:c.relayLen])
	}
	return req, store
}

// without is c with the options below code in Reply's priority order
// removed: those a reply may only keep with the room code leaves.
func (c fitCase) without(code uint8) fitCase {
	order := []uint8{82, 61, 6, 15, 42, 119}
	below := false
	for _, o := range order {
		if below {
			switch o {
			case 61:
				c.clientLen = 0
			case 6:
				c.dns = 0
			case 15:
				c.domainLen = 0
			case 42:
				c.ntp = 0
			case 119:
				c.search = 0
			}
		}
		below = below || o == code
	}
	return c
}

// FuzzReplyFits builds random pools and requests: the reply must never be
// larger than the client's limit, must keep the mandatory options, must
// carry every other option whole or a prefix of its entries, exactly as
// Trim reports, and what it keeps of an option must not depend on the
// options below it in the priority order.
func FuzzReplyFits(f *testing.F) {
	f.Add(uint16(300), uint8(0), uint8(0), uint8(200), uint8(45), true, uint32(600), uint16(0), uint16(0), uint16(0), byte(0))
	f.Add(uint16(300), uint8(0), uint8(0), uint8(200), uint8(45), true, uint32(600), uint16(1500), uint16(0), uint16(0), byte(1))
	f.Add(uint16(2), uint8(1), uint8(11), uint8(2), uint8(11), true, uint32(600), uint16(0), uint16(10_000), uint16(7), byte(0))
	f.Add(uint16(70), uint8(3), uint8(60), uint8(20), uint8(30), false, uint32(0), uint16(576), uint16(120), uint16(9), byte(2))
	f.Add(uint16(0), uint8(0), uint8(0), uint8(0), uint8(0), false, uint32(1), uint16(65535), uint16(0), uint16(300), byte(1))
	f.Fuzz(func(t *testing.T, dns uint16, ntp, domainLen, search, nameLen uint8, router bool, lease uint32,
		maxSize, relayLen, clientLen uint16, kind byte) {
		c := fitCase{
			dns: int(dns % 1024), ntp: int(ntp), search: int(search), domainLen: int(domainLen), nameLen: int(nameLen),
			router: router, leaseSecs: lease, maxSize: maxSize,
			relayLen: int(relayLen % 12_000), clientLen: int(clientLen % 600), kind: kind,
		}
		req, store := c.build(t)
		resp, trim, err := ReplyWithTrim(req, store)
		if err != nil {
			t.Fatalf("Reply: %v", err)
		}
		limit := max(int(maxSize), 576) - udpIPv4Overhead
		if ReplyLimit(req) != limit || trim.Limit != limit {
			t.Fatalf("limit %d, Trim.Limit %d, want %d", ReplyLimit(req), trim.Limit, limit)
		}
		wire := resp.ToBytes()
		if len(wire) > limit {
			t.Fatalf("reply of %d bytes, limit %d (%s)", len(wire), limit, trim)
		}
		opts, _, err := clientOptions(wire)
		if err != nil {
			t.Fatalf("reply does not parse as a client parses it: %v", err)
		}
		checkAgainstLease(t, req, store, opts, trim)
		if c.kind%3 == 2 {
			return // a NAK's order ends with its own message
		}
		for _, cut := range trim.Cuts {
			lower, lstore := c.without(cut.Code).build(t)
			_, ltrim, err := ReplyWithTrim(lower, lstore)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(ltrim.Cuts, func(l Cut) bool { return l.Code == cut.Code })
			if i < 0 || ltrim.Cuts[i] != cut {
				t.Fatalf("%s kept with the options below it, %v without them", cut, ltrim)
			}
		}
	})
}

// FuzzReplyFitsAnyRequest feeds arbitrary packets to Reply on the pool of
// the issue, 300 name servers and 200 search domains: whatever option 57,
// 61 and 82 the packet carries, a reply fits ReplyLimit and keeps the
// mandatory options where a client reads them.
func FuzzReplyFitsAnyRequest(f *testing.F) {
	for _, m := range []*dhcpv4.DHCPv4{
		discover(f, macA), msg(f, macA, dhcpv4.MessageTypeDiscover, withMaxSize(1500)),
		selecting(f, macA, serverIP, addrA), selecting(f, macA, serverIP, addrB), renewing(f, macA, addrA),
		withRawOption(f, discover(f, macA), 82, relayInfo(10_000)),
		withRawOption(f, msg(f, macA, dhcpv4.MessageTypeDiscover, withMaxSize(9000)), 61, bytes.Repeat([]byte{1}, 700)),
	} {
		f.Add(m.ToBytes())
	}
	store := storeOf(f, bigPool(labAllocated(), 300, 200))
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := dhcpv4.FromBytes(b)
		if err != nil {
			return
		}
		resp, trim, err := ReplyWithTrim(req, store)
		if resp == nil {
			return
		}
		wire := resp.ToBytes()
		if limit := ReplyLimit(req); len(wire) > limit || trim.Limit != limit {
			t.Fatalf("reply of %d bytes, limit %d, Trim.Limit %d", len(wire), limit, trim.Limit)
		}
		opts, _, err := clientOptions(wire)
		if err != nil {
			t.Fatalf("reply does not parse as a client parses it: %v", err)
		}
		want := []uint8{53, 54}
		if typ := resp.MessageType(); typ != dhcpv4.MessageTypeNak {
			want = append(want, 51, 58, 59, 1, 3)
		}
		for _, code := range want {
			if _, ok := opts[code]; !ok {
				t.Errorf("%s without option %d", resp.MessageType(), code)
			}
		}
		for _, c := range trim.Cuts {
			if slices.Contains(want, c.Code) {
				t.Errorf("mandatory option cut: %s", c)
			}
		}
	})
}
