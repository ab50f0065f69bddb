package dhcp6wire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// describeMessage writes a decoded message on one line, for the captured
// exchanges: type, client MAC in the DUID, server DUID type, IAs with
// their addresses, lifetimes and status, top-level status, DNS, search
// list, the codes of the other options.
func describeMessage(m *dhcp6wire.Message) string {
	var b strings.Builder
	b.WriteString(m.Type.String())
	if d, err := dhcp6wire.ParseDUID(m.ClientID); err == nil {
		mac, _ := d.MAC()
		fmt.Fprintf(&b, " client=%d/%x", d.Type, mac)
	}
	if d, err := dhcp6wire.ParseDUID(m.ServerID); err == nil {
		fmt.Fprintf(&b, " server=%d", d.Type)
	}
	for _, ia := range m.IANA {
		fmt.Fprintf(&b, " ia%d(%d/%d", ia.IAID, ia.T1, ia.T2)
		for _, a := range ia.Addrs {
			fmt.Fprintf(&b, " %s %d/%d", a.Addr, a.Preferred, a.Valid)
		}
		if ia.Status.Present {
			fmt.Fprintf(&b, " %s", ia.Status.Code)
		}
		b.WriteString(")")
	}
	if m.Status.Present {
		fmt.Fprintf(&b, " %s %q", m.Status.Code, m.Status.Message)
	}
	if len(m.DNS) > 0 {
		fmt.Fprintf(&b, " dns%v", m.DNS)
	}
	if len(m.DomainList) > 0 {
		names, err := dhcp6wire.ParseDomainList(m.DomainList)
		fmt.Fprintf(&b, " search%v%v", names, err)
	}
	for _, o := range m.Options {
		fmt.Fprintf(&b, " opt%d", o.Code)
	}
	return b.String()
}

// TestDecodeCapturedExchanges decodes what dhclient, dhcpcd and Kea sent
// each other, and re-encodes it into what decodes the same.
func TestDecodeCapturedExchanges(t *testing.T) {
	// As tcpdump -vv reads the same datagrams.
	const (
		keaOptions = " dns[2001:db8:30::53] search[lab.example.com]<nil>"
		released   = ` Success "Summary status for all processed IA_NAs"`
	)
	want := map[string]string{
		"kea-advertise-dhclient.hex":     "ADVERTISE client=1/525400123456 server=3 ia1193046(900/1440 2001:db8:30::100 1800/3600)" + keaOptions,
		"dhclient-request.hex":           "REQUEST client=1/525400123456 server=3 ia1193046(3600/5400 2001:db8:30::100 7200/7500)",
		"kea-reply-dhclient-request.hex": "REPLY client=1/525400123456 server=3 ia1193046(900/1440 2001:db8:30::100 1800/3600)" + keaOptions,
		"dhclient-release.hex":           "RELEASE client=1/525400123456 server=3 ia1193046(0/0 2001:db8:30::100 0/0)",
		"kea-reply-dhclient-release.hex": "REPLY client=1/525400123456 server=3 ia1193046(0/0 Success)" + released,
		"kea-advertise-dhcpcd.hex":       "ADVERTISE client=1/525400123456 server=3 ia1(900/1440 2001:db8:30::101 1800/3600)" + keaOptions,
		"dhcpcd-request.hex":             "REQUEST client=1/525400123456 server=3 ia1(0/0 2001:db8:30::101 1800/3600) opt16",
		"kea-reply-dhcpcd-request.hex":   "REPLY client=1/525400123456 server=3 ia1(900/1440 2001:db8:30::101 1800/3600)" + keaOptions,
		"dhcpcd-release.hex":             "RELEASE client=1/525400123456 server=3 ia1(0/0 2001:db8:30::101 1800/3600) opt16",
		"kea-reply-dhcpcd-release.hex":   "REPLY client=1/525400123456 server=3 ia1(0/0 Success)" + released,
	}
	for _, name := range exchanged {
		t.Run(name, func(t *testing.T) {
			b := readHex(t, name)
			var p dhcp6wire.Packet
			if err := dhcp6wire.Decode(&p, b); err != nil {
				t.Fatal(err)
			}
			got := describeMessage(&p.Msg)
			if w := want[name]; got != w {
				t.Errorf("decoded\n got %s\nwant %s", got, w)
			}
			if mac, _ := func() ([6]byte, bool) { d, _ := dhcp6wire.ParseDUID(p.Msg.ClientID); return d.MAC() }(); mac != clientMAC {
				t.Errorf("client DUID MAC %x, want %x", mac, clientMAC)
			}
			var q dhcp6wire.Packet
			if err := dhcp6wire.Decode(&q, dhcp6wire.Append(nil, &p)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(p, q, equatePackets); diff != "" {
				t.Errorf("re-encoded (-first +second):\n%s", diff)
			}
		})
	}
}
