package dhcp4

import (
	"bytes"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

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
	opts := leasestore.Options{ServerIP: dhcp4test.ServerIP, LeaseTime: time.Duration(c.leaseSecs) * time.Second}
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
	spec := ipam.Spec{Prefix: netip.MustParsePrefix("10.77.0.0/24"), Reserved: []netip.Addr{dhcp4test.ServerIP}}
	snap, problems := ipam.ParseAllocated(spec, dhcp4test.LabAllocated())
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	store, _ := leasestore.Build(snap, opts)

	var mods []dhcpv4.Modifier
	if c.maxSize > 0 {
		mods = append(mods, dhcp4test.WithMaxSize(c.maxSize))
	}
	if c.clientLen > 0 {
		mods = append(mods, dhcpv4.WithGeneric(dhcpv4.OptionClientIdentifier, bytes.Repeat([]byte{1}, c.clientLen)))
	}
	var req *dhcpv4.DHCPv4
	switch c.kind % 3 {
	case 0:
		req = dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, mods...)
	case 1:
		req = dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRequest, append(mods, dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(dhcp4test.NetIP(dhcp4test.AddrA))))...)
	case 2:
		req = dhcp4test.Message(t, dhcp4test.MACA, dhcpv4.MessageTypeRequest, append(mods, dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(dhcp4test.NetIP(dhcp4test.AddrB))))...)
	}
	if c.relayLen > 0 {
		req = dhcp4test.WithRawOption(t, req, 82, dhcp4test.RelayInfo(c.relayLen)[:c.relayLen])
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
		if dhcp4wire.ReplyLimit(req) != limit || trim.Limit != limit {
			t.Fatalf("limit %d, Trim.Limit %d, want %d", dhcp4wire.ReplyLimit(req), trim.Limit, limit)
		}
		wire := resp.ToBytes()
		if len(wire) > limit {
			t.Fatalf("reply of %d bytes, limit %d (%s)", len(wire), limit, trim)
		}
		opts, _, err := dhcp4test.ClientOptions(wire)
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
		dhcp4test.Discover(f, dhcp4test.MACA), dhcp4test.Message(f, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(1500)),
		dhcp4test.Selecting(f, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA), dhcp4test.Selecting(f, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrB), dhcp4test.Renewing(f, dhcp4test.MACA, dhcp4test.AddrA),
		dhcp4test.WithRawOption(f, dhcp4test.Discover(f, dhcp4test.MACA), 82, dhcp4test.RelayInfo(10_000)),
		dhcp4test.WithRawOption(f, dhcp4test.Message(f, dhcp4test.MACA, dhcpv4.MessageTypeDiscover, dhcp4test.WithMaxSize(9000)), 61, bytes.Repeat([]byte{1}, 700)),
	} {
		f.Add(m.ToBytes())
	}
	store := storeOf(f, labtest.BigPool(dhcp4test.LabAllocated(), 300, 200))
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
		if limit := dhcp4wire.ReplyLimit(req); len(wire) > limit || trim.Limit != limit {
			t.Fatalf("reply of %d bytes, limit %d, Trim.Limit %d", len(wire), limit, trim.Limit)
		}
		opts, _, err := dhcp4test.ClientOptions(wire)
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
