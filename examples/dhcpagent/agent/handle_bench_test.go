package agent

import (
	"net/netip"
	"testing"

	"github.com/go-logr/logr"
	"github.com/insomniacslk/dhcp/dhcpv4"
)

// BenchmarkServePacket is BenchmarkPacket's cases as Serve runs them:
// decode the datagram into a reused message (decodeMessage), then handle it (decide, build the reply, pick its
// destination, encode it, send it to a writer that keeps it). Unlike
// BenchmarkPacket, whose RespondAt returns a reply the caller owns, it
// measures the pooled reply path.
func BenchmarkServePacket(b *testing.B) {
	a := newAgent(b, benchPool(10000), logr.Discard())
	peer := netip.AddrPortFrom(limitedBroadcast, ClientPort)
	for _, tt := range packetCases(b) {
		b.Run(tt.name, func(b *testing.B) {
			wire := tt.req.ToBytes()
			w := &captureWriter{last: make([]byte, 0, 1500)}
			var m dhcpv4.DHCPv4
			b.ReportAllocs()
			for b.Loop() {
				if err := decodeMessage(&m, wire); err != nil {
					b.Fatal(err)
				}
				w.last = w.last[:0]
				a.handle(w, peer, &m)
				if sent, want := len(w.last) > 0, tt.want != dhcpv4.MessageTypeNone; sent != want {
					b.Fatalf("sent %v, want %v", sent, want)
				}
			}
		})
	}
}
