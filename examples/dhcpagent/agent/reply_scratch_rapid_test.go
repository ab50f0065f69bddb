package agent

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"pgregory.net/rapid"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// drawPool is the lab pool (macA at addrA, macB at addrB) with drawn
// options: enough name servers and search names, at times, that replies
// are trimmed and overloaded.
func drawPool(t *rapid.T) *poolsource.Pool {
	p := labtest.Pool(dhcp4test.LabAllocated())
	p.Spec.DNS = nil
	for i := range rapid.IntRange(0, 80).Draw(t, "name servers") {
		p.Spec.DNS = append(p.Spec.DNS, fmt.Sprintf("10.77.1.%d", i))
	}
	p.Spec.NTP = rapid.SliceOfN(rapid.SampledFrom([]string{"10.77.0.3", "10.77.0.4"}), 0, 2).Draw(t, "ntp")
	p.Spec.Domain = rapid.SampledFrom([]string{"", "lab.example", strings.Repeat("long", 40) + ".example"}).Draw(t, "domain")
	p.Spec.DomainSearch = nil
	for i := range rapid.IntRange(0, 30).Draw(t, "search names") {
		p.Spec.DomainSearch = append(p.Spec.DomainSearch, fmt.Sprintf("s%d.%s.example", i, strings.Repeat("x", rapid.IntRange(1, 60).Draw(t, "label"))))
	}
	p.Spec.Router = rapid.SampledFrom([]string{"", "10.77.0.1"}).Draw(t, "router")
	p.Spec.LeaseTime = poolsource.Duration(rapid.SampledFrom([]time.Duration{0, time.Second, 10 * time.Minute, 1 << 62}).Draw(t, "lease time"))
	return p
}

// drawRequest is a client message of the kinds the agent answers or
// refuses, with the fields and options its answer depends on drawn.
func drawRequest(t *rapid.T) *dhcpv4.DHCPv4 {
	mac := rapid.SampledFrom([]string{dhcp4test.MACA, dhcp4test.MACB, dhcp4test.MACUnknown}).Draw(t, "mac")
	typ := rapid.SampledFrom([]dhcpv4.MessageType{
		dhcpv4.MessageTypeDiscover, dhcpv4.MessageTypeRequest, dhcpv4.MessageTypeRequest,
		dhcpv4.MessageTypeInform, dhcpv4.MessageTypeRelease, dhcpv4.MessageTypeOffer, dhcpv4.MessageTypeNone,
	}).Draw(t, "type")
	m := dhcp4test.Message(t, mac, typ)
	if typ == dhcpv4.MessageTypeNone {
		delete(m.Options, dhcpv4.OptionDHCPMessageType.Code())
	}
	addrs := []netip.Addr{dhcp4test.ServerIP, dhcp4test.AddrA, dhcp4test.AddrB, dhcp4test.AddrA2, netip.MustParseAddr("192.168.1.7")}
	addrOption := func(code uint8, label string) {
		switch rapid.IntRange(0, 3).Draw(t, label) {
		case 1, 2:
			m.Options[code] = rapid.SampledFrom(addrs).Draw(t, label+" addr").AsSlice()
		case 3:
			m.Options[code] = rapid.SliceOfN(rapid.Byte(), 0, 6).Draw(t, label+" bytes")
		}
	}
	addrOption(dhcpv4.OptionServerIdentifier.Code(), "server id")
	addrOption(dhcpv4.OptionRequestedIPAddress.Code(), "requested")
	if rapid.Bool().Draw(t, "ciaddr set") {
		m.ClientIPAddr = dhcp4test.NetIP(rapid.SampledFrom(addrs).Draw(t, "ciaddr"))
		if rapid.Bool().Draw(t, "ciaddr 16 bytes") {
			m.ClientIPAddr = m.ClientIPAddr.To16()
		}
	}
	if rapid.Bool().Draw(t, "relayed") {
		m.GatewayIPAddr = net.IPv4(10, 77, 0, 3).To4()
	}
	if rapid.Bool().Draw(t, "broadcast") {
		m.SetBroadcast()
	}
	switch rapid.IntRange(0, 2).Draw(t, "max message size") {
	case 1:
		m.Options[dhcpv4.OptionMaximumDHCPMessageSize.Code()] = rapid.SliceOfN(rapid.Byte(), 2, 2).Draw(t, "57")
	case 2:
		m.Options[dhcpv4.OptionMaximumDHCPMessageSize.Code()] = rapid.SliceOfN(rapid.Byte(), 0, 3).Draw(t, "57 any")
	}
	for _, code := range []uint8{82, 61} { // the options a reply echoes: relay agent information, client identifier
		if rapid.Bool().Draw(t, fmt.Sprintf("%d set", code)) {
			m.Options[code] = rapid.SliceOfN(rapid.Byte(), 0, 400).Draw(t, fmt.Sprintf("%d", code))
		}
	}
	return m
}

// answer is what ReplyTo gave: the reply's wire form, what it left out,
// and why there was none.
type answer struct {
	Wire []byte
	Trim dhcp4.Trim
	Err  string
}

func answerOf(resp *dhcpv4.DHCPv4, trim dhcp4.Trim, err error) answer {
	a := answer{Trim: trim}
	if resp != nil {
		a.Wire = dhcp4wire.Append(nil, resp)
	}
	if err != nil {
		a.Err = err.Error()
	}
	return a
}

// TestReplyInScratchMatchesReplyTo: a reply built in one dhcp4.Scratch
// reused over a sequence of requests (as Handle reuses its pooled ones),
// and the datagram Handle sends, are byte for byte what dhcp4.ReplyTo returns
// in fresh memory, with the same dhcp4.Trim and error; and no later reply
// changes an earlier dhcp4.ReplyTo reply, which its caller owns.
func TestReplyInScratchMatchesReplyTo(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rapid.Check(t, func(t *rapid.T) {
		a := New(nil, WithLogger(quietLogger()), WithClock(func() time.Time { return now }))
		if _, err := a.Apply(drawPool(t)); err != nil {
			t.Fatal(err)
		}
		if rapid.Bool().Draw(t, "addrA on probation") {
			a.Probation().Decline(leasestore.MustParseMAC(dhcp4test.MACA), dhcp4test.AddrA, now)
		}
		table := a.TableAt(now)
		var s dhcp4.Scratch
		peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}
		type owned struct {
			resp *dhcpv4.DHCPv4
			wire []byte
		}
		var earlier []owned
		for i := range rapid.IntRange(1, 12).Draw(t, "requests") {
			req := drawRequest(t)
			resp, trim, err := dhcp4.ReplyTo(req, table)
			want := answerOf(resp, trim, err)
			if resp != nil {
				earlier = append(earlier, owned{resp, want.Wire})
			}
			if diff := cmp.Diff(want, answerOf(dhcp4.Decide(&s, req, table, nil))); diff != "" {
				t.Fatalf("request %d: reply in a reused scratch (-dhcp4.ReplyTo +got):\n%s", i, diff)
			}
			conn := &captureConn{}
			a.Handle(conn, peer, req)
			if !bytes.Equal(conn.last, want.Wire) {
				t.Fatalf("request %d: Handle sent\n%x\nReplyTo's reply is\n%x", i, conn.last, want.Wire)
			}
		}
		for i, e := range earlier {
			if got := dhcp4wire.Append(nil, e.resp); !bytes.Equal(got, e.wire) {
				t.Fatalf("dhcp4.ReplyTo's reply %d changed after later replies:\n%x\nwas\n%x", i, got, e.wire)
			}
		}
	})
}
