package agent

import (
	"net"
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
	const mac = "52:54:00:00:12:34" // 10.77.19.52 in benchPool
	leased := netip.MustParseAddr("10.77.19.52")
	server := netip.MustParseAddr("10.77.0.2")
	relayed := discover(b, mac)
	relayed.GatewayIPAddr = net.IPv4(10, 77, 0, 3).To4()
	tests := []struct {
		name string
		req  *dhcpv4.DHCPv4
		sent bool
	}{
		{"DISCOVER-OFFER", discover(b, mac), true},
		{"relayed DISCOVER-OFFER", relayed, true},
		{"REQUEST-ACK", selecting(b, mac, server, leased), true},
		{"renewing REQUEST-ACK", renewing(b, mac, leased), true},
		{"REQUEST-NAK", selecting(b, mac, server, leased.Next()), true},
		{"unknown DISCOVER", discover(b, "52:54:00:ff:ff:ff"), false},
	}
	peer := netip.AddrPortFrom(limitedBroadcast, ClientPort)
	for _, tt := range tests {
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
				if sent := len(w.last) > 0; sent != tt.sent {
					b.Fatalf("sent %v, want %v", sent, tt.sent)
				}
			}
		})
	}
}
