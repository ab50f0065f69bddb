package dhcp6wire_test

import (
	"encoding/hex"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// The captured datagrams of testdata: the first SOLICIT of dhclient -6
// (isc-dhcp-client 4.4.3) and of dhcpcd 9.4.1 (-6, ia_na 1), on a veth
// whose MAC is 52:54:00:12:34:56, from fe80::5054:ff:fe12:3456; and the
// whole exchange of each client with Kea 2.2 (kea-dhcp6, preferred 1800
// s, valid 3600 s, T1 900 s, T2 1440 s, DNS 2001:db8:30::53, search
// lab.example.com, pool 2001:db8:30::100-1ff): its ADVERTISE, the
// client's REQUEST, Kea's REPLY, the client's RELEASE (dhclient -r,
// dhcpcd's "release" on SIGTERM) and Kea's REPLY.
var captured = []string{"dhclient-solicit.hex", "dhcpcd-solicit.hex"}

// exchanged are the captured exchanges with Kea, in order, per client.
var exchanged = []string{
	"kea-advertise-dhclient.hex", "dhclient-request.hex", "kea-reply-dhclient-request.hex", "dhclient-release.hex", "kea-reply-dhclient-release.hex",
	"kea-advertise-dhcpcd.hex", "dhcpcd-request.hex", "kea-reply-dhcpcd-request.hex", "dhcpcd-release.hex", "kea-reply-dhcpcd-release.hex",
}

func readHex(tb testing.TB, name string) []byte {
	tb.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(text)))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// clientMAC is the MAC of the captured clients.
var clientMAC = [6]byte{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}

// equatePackets compares decoded packets by what they hold: an empty
// slice equals a nil one, a re-encoded empty option its absence.
var equatePackets = cmp.Options{
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreUnexported(dhcp6wire.Message{}),
	cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
}

// sampleRequest is a REQUEST as a client sends it after an ADVERTISE.
func sampleRequest() dhcp6wire.Message {
	return dhcp6wire.Message{
		Type:          dhcp6wire.Request,
		TransactionID: [3]byte{1, 2, 3},
		ClientID:      dhcp6wire.AppendDUIDLLT(nil, 849631439, clientMAC),
		ServerID:      dhcp6wire.AppendDUIDLL(nil, [6]byte{0x02, 0, 0, 0, 0, 1}),
		IANA: []dhcp6wire.IANA{{IAID: 7, T1: 3600, T2: 5400, Addrs: []dhcp6wire.IAAddr{
			{Addr: netip.MustParseAddr("2001:db8:30::10"), Preferred: 7200, Valid: 7500},
		}}},
		ORO:            []dhcp6wire.OptionCode{dhcp6wire.OptionDNSServers, dhcp6wire.OptionDomainList},
		HasElapsedTime: true,
		ElapsedTime:    12,
	}
}
