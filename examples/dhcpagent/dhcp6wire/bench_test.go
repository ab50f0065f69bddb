package dhcp6wire_test

import (
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// BenchmarkDecode decodes a captured SOLICIT, and a relayed REQUEST, into
// one reused Packet; BenchmarkAppend encodes them into a reused buffer.
func BenchmarkDecode(b *testing.B) {
	for _, tc := range benchInputs(b) {
		b.Run(tc.name, func(b *testing.B) {
			var p dhcp6wire.Packet
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.b)))
			for b.Loop() {
				if err := dhcp6wire.Decode(&p, tc.b); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAppend(b *testing.B) {
	for _, tc := range benchInputs(b) {
		b.Run(tc.name, func(b *testing.B) {
			var p dhcp6wire.Packet
			if err := dhcp6wire.Decode(&p, tc.b); err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 0, 1500)
			b.ReportAllocs()
			for b.Loop() {
				buf = dhcp6wire.Append(buf[:0], &p)
			}
		})
	}
}

func benchInputs(b *testing.B) []struct {
	name string
	b    []byte
} {
	req := sampleRequest()
	return []struct {
		name string
		b    []byte
	}{
		{"dhclient-solicit", readHex(b, "dhclient-solicit.hex")},
		{"relayed-request", dhcp6wire.Append(nil, &dhcp6wire.Packet{
			Relays: []dhcp6wire.Relay{{Type: dhcp6wire.RelayForw, InterfaceID: []byte("eth0"), LinkLayerType: 1, LinkLayerAddr: clientMAC[:]}},
			Msg:    req,
		})},
	}
}
