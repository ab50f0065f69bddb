package dhcp6_test

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// readCaptured returns a datagram dhclient, dhcpcd or Kea sent, as
// package dhcp6wire's testdata holds it (see its fixtures_test.go).
func readCaptured(t testing.TB, name string) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "dhcp6wire", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The real clients' messages, as they sent them to Kea, answered by the
// decision as if it were that server: the clients asked to keep the
// addresses Kea gave them (2001:db8:30::100, ::101), our pool gives their
// MAC 2001:db8:30::10, so the REPLY binds ::10 and returns Kea's address
// at lifetimes 0.
func TestCapturedClients(t *testing.T) {
	var adv dhcp6wire.Message
	if err := dhcp6wire.DecodeMessage(&adv, readCaptured(t, "kea-advertise-dhclient.hex")); err != nil {
		t.Fatal(err)
	}
	tb := testTable(t)
	tb.ServerID = adv.ServerID
	a := onLink(llU, macU)
	for _, tc := range []struct {
		file     string
		want     string
		bound    bool
		released bool
	}{
		{"dhclient-solicit.hex", "ADVERTISE ia1193046(900/1440 2001:db8:30::10 1800/3600) " + options, false, false},
		{"dhclient-request.hex", "REPLY ia1193046(900/1440 2001:db8:30::10 1800/3600 2001:db8:30::100 0/0) " + options, true, false},
		{"dhclient-release.hex", "REPLY Success ia1193046(0/0 NoBinding)", false, false},
		{"dhcpcd-solicit.hex", "ADVERTISE " + grantU, false, false},
		{"dhcpcd-request.hex", "REPLY ia1(900/1440 2001:db8:30::10 1800/3600 2001:db8:30::101 0/0) " + options, true, false},
		{"dhcpcd-release.hex", "REPLY Success ia1(0/0 NoBinding)", false, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var req dhcp6wire.Packet
			if err := dhcp6wire.Decode(&req, readCaptured(t, tc.file)); err != nil {
				t.Fatal(err)
			}
			var r dhcp6.Reply
			d, err := dhcp6.Decide(&r, &req, a, tb)
			if err != nil {
				t.Fatal(err)
			}
			var back dhcp6wire.Packet
			if err := dhcp6wire.Decode(&back, r.Append(nil)); err != nil {
				t.Fatal(err)
			}
			if got := describe(&back); got != tc.want {
				t.Errorf("reply\n got %s\nwant %s", got, tc.want)
			}
			if d.Bound != tc.bound || d.Released.IsValid() != tc.released || d.Client.Source != dhcp6.SourceDUID {
				t.Errorf("decision %+v", d)
			}
		})
	}
}
