package dhcp6_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// TestArrivalRules: a message is answered only when its source can take
// a reply (unicast link-local or global), and a relayed one only from a
// relay the table lists; an unlisted relay's link-layer option and peer
// address, which would choose any MAC's lease, are never read.
func TestArrivalRules(t *testing.T) {
	relayed := func(linkLayer []byte) dhcp6wire.Packet {
		return dhcp6wire.Packet{Relays: []dhcp6wire.Relay{{Type: dhcp6wire.RelayForw, LinkAddr: netip.MustParseAddr("2001:db8:30::1"),
			PeerAddr: netip.MustParseAddr("fe80::1"), LinkLayerType: 1, LinkLayerAddr: linkLayer}}, Msg: msg(dhcp6wire.Solicit, duidUUID)}
	}
	plain := dhcp6wire.Packet{Msg: msg(dhcp6wire.Solicit, llt(macU))}
	from := func(src string) dhcp6.Arrival { return dhcp6.Arrival{Source: netip.MustParseAddr(src)} }
	relayFrom := func(src string) dhcp6.Arrival { return dhcp6.Arrival{Source: netip.MustParseAddr(src), Unicast: true} }
	noRelays := testTable(t)
	noRelays.Relays = nil
	tests := []struct {
		name    string
		p       dhcp6wire.Packet
		a       dhcp6.Arrival
		tb      dhcp6.Table
		want    string // the reply's first words, "" with an error
		wantErr error
	}{
		{"client from its link-local", plain, from("fe80::5054:ff:fe12:3456"), testTable(t), "ADVERTISE", nil},
		{"client from a global address", plain, from("2001:db8:30::77"), testTable(t), "ADVERTISE", nil},
		{"client from a unique local address", plain, from("fd00::77"), testTable(t), "ADVERTISE", nil},
		{"source ff02::1, all nodes", plain, from("ff02::1"), testTable(t), "", dhcp6.ErrReplySource},
		{"source ff02::1:2, the servers' group", plain, from("ff02::1:2"), testTable(t), "", dhcp6.ErrReplySource},
		{"source ::, unspecified", plain, from("::"), testTable(t), "", dhcp6.ErrReplySource},
		{"source ::1, loopback", plain, from("::1"), testTable(t), "", dhcp6.ErrReplySource},
		{"source IPv4-mapped", plain, from("::ffff:10.0.0.1"), testTable(t), "", dhcp6.ErrReplySource},
		{"source IPv4", plain, from("10.0.0.1"), testTable(t), "", dhcp6.ErrReplySource},
		{"no source known", plain, dhcp6.Arrival{}, testTable(t), "", dhcp6.ErrReplySource},
		{"listed relay, its link-layer option chooses the lease", relayed(macU[:]), relayFrom("2001:db8:30::1"), testTable(t),
			`RELAY-REPL(fe80::1 if="") ADVERTISE ia1(900/1440 ` + addrU.String(), nil},
		{"relay inside a listed prefix", relayed(macU[:]), relayFrom("2001:db8:1::99"), testTable(t), `RELAY-REPL(fe80::1 if="") ADVERTISE ia1(900/1440 ` + addrU.String(), nil},
		{"unlisted relay naming another MAC", relayed(macU[:]), relayFrom("2001:db8:30::66"), testTable(t), "", dhcp6.ErrUntrustedRelay},
		{"unlisted link-local relay", relayed(macU[:]), relayFrom("fe80::66"), testTable(t), "", dhcp6.ErrUntrustedRelay},
		{"relay multicast on the link, unlisted", relayed(macU[:]), from("fe80::66"), testTable(t), "", dhcp6.ErrUntrustedRelay},
		{"no relay listed: every relayed message", relayed(macU[:]), relayFrom("2001:db8:30::1"), noRelays, "", dhcp6.ErrUntrustedRelay},
		{"no relay listed: a client on the link is served", plain, from("fe80::5054:ff:fe12:3456"), noRelays, "ADVERTISE", nil},
		{"listed relay with a multicast source", relayed(macU[:]), from("ff02::1"), testTable(t), "", dhcp6.ErrReplySource},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, got, err := exchange(t, tc.p, tc.a, tc.tb)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Decide error %v, want %v", err, tc.wantErr)
			}
			if len(got) < len(tc.want) || got[:len(tc.want)] != tc.want {
				t.Errorf("reply %q, want it to start %q", got, tc.want)
			}
		})
	}
}

// TestReplyLimit: the bound is MaxReplyFactor times the request, capped at
// MaxReplySize, and what real clients' smallest messages get fits it while
// the 1,000-IA_NA amplifier does not.
func TestReplyLimit(t *testing.T) {
	for _, tc := range []struct {
		name       string
		requestLen int
		want       int
	}{
		{"nothing", 0, 0},
		{"negative", -5, 0},
		{"a 34-byte SOLICIT", 34, 272},
		{"a dhclient SOLICIT", 60, 480},
		{"at the cap", 154, 1232},
		{"past the cap", 16048, 1232},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dhcp6.ReplyLimit(tc.requestLen); got != tc.want {
				t.Errorf("ReplyLimit(%d) = %d, want %d", tc.requestLen, got, tc.want)
			}
		})
	}
	tb := testTable(t)
	many := msg(dhcp6wire.Request, llt(macU), addrU)
	for i := range 1000 {
		many.IANA = append(many.IANA, dhcp6wire.IANA{IAID: uint32(i + 2)})
	}
	for _, tc := range []struct {
		name string
		m    dhcp6wire.Message
		fits bool
	}{
		{"SOLICIT", msg(dhcp6wire.Solicit, llt(macU)), true},
		{"REQUEST", msg(dhcp6wire.Request, llt(macU), addrU), true},
		{"RENEW of a moved address", msg(dhcp6wire.Renew, llt(macU), netip.MustParseAddr("2001:db8:30::9")), true},
		{"INFORMATION-REQUEST", msg(dhcp6wire.InformationRequest, duidUUID), true},
		{"SOLICIT without a lease", msg(dhcp6wire.Solicit, llt(macNone)), true},
		{"REQUEST with 1,001 IA_NAs", many, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := dhcp6wire.AppendMessage(nil, &tc.m)
			var p dhcp6wire.Packet
			if err := dhcp6wire.Decode(&p, req); err != nil {
				t.Fatal(err)
			}
			var r dhcp6.Reply
			if _, err := dhcp6.Decide(&r, &p, dhcp6.Arrival{Source: llU}, tb); err != nil {
				t.Fatal(err)
			}
			out := r.Append(nil)
			if fits := len(out) <= dhcp6.ReplyLimit(len(req)); fits != tc.fits {
				t.Errorf("a %d-byte reply to %d bytes fits %v, want %v (limit %d)", len(out), len(req), fits, tc.fits, dhcp6.ReplyLimit(len(req)))
			}
		})
	}
}
