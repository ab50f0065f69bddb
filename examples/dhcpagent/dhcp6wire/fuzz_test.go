package dhcp6wire_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// FuzzDecode checks that Decode never panics, and that what it accepts
// re-encodes (Append) into a datagram that decodes to the same packet and
// re-encodes to the same bytes. Seeds: the captured client messages, and
// hand-made relayed and reply messages.
func FuzzDecode(f *testing.F) {
	for _, name := range append(captured, exchanged...) {
		f.Add(readHex(f, name))
	}
	req := sampleRequest()
	f.Add(dhcp6wire.AppendMessage(nil, &req))
	f.Add(dhcp6wire.Append(nil, &dhcp6wire.Packet{
		Relays: []dhcp6wire.Relay{{Type: dhcp6wire.RelayForw, InterfaceID: []byte("if"), LinkLayerType: 1, LinkLayerAddr: clientMAC[:]},
			{Type: dhcp6wire.RelayForw, HopCount: 1}},
		Msg: req,
	}))
	var p, q dhcp6wire.Packet
	f.Fuzz(func(t *testing.T, b []byte) {
		if dhcp6wire.Decode(&p, b) != nil {
			return
		}
		once := dhcp6wire.Append(nil, &p)
		if err := dhcp6wire.Decode(&q, once); err != nil {
			t.Fatalf("re-encoded %x does not decode: %v", once, err)
		}
		if diff := cmp.Diff(p, q, equatePackets); diff != "" {
			t.Fatalf("decoded again (-first +second):\n%s", diff)
		}
		if twice := dhcp6wire.Append(nil, &q); string(twice) != string(once) {
			t.Fatalf("encodings differ:\n%x\n%x", once, twice)
		}
		if d, err := dhcp6wire.ParseDUID(p.Msg.ClientID); err == nil {
			d.MAC()
		}
		dhcp6wire.ParseDomainList(p.Msg.DomainList)
	})
}
