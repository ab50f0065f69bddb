package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"

	"net"
	"net/netip"
	"testing"

	"github.com/go-logr/logr"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
)

// BenchmarkPacket is the per-packet path through the exported API short
// of the socket: decode the datagram (dhcpv4.FromBytes), decide and build
// a reply the caller owns from a 10,000-lease table (RespondAt), pick its
// destination and encode it into a reused buffer (dhcp4wire.Append), for
// each kind of answer perfdhcp and real clients get. Serve's own path,
// which reuses the message and the reply, is BenchmarkServePacket.
func BenchmarkPacket(b *testing.B) {
	a := newAgent(b, benchPool(10000), logr.Discard())
	tests := packetCases(b)
	peer := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ClientPort}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			wire := tt.req.ToBytes()
			buf := make([]byte, 0, 1500)
			b.ReportAllocs()
			for b.Loop() {
				m, err := dhcpv4.FromBytes(wire)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := a.RespondAt(m, a.now())
				if tt.want == dhcpv4.MessageTypeNone {
					if err == nil {
						b.Fatalf("reply %s, want none", resp.MessageType())
					}
					continue
				}
				if err != nil {
					b.Fatal(err)
				}
				if got := resp.MessageType(); got != tt.want {
					b.Fatalf("reply %s, want %s", got, tt.want)
				}
				_ = dhcp4.Destination(m, resp, peer)
				buf = dhcp4wire.Append(buf[:0], resp)
			}
		})
	}
}

// packetCase is one request of the per-packet benchmarks and the answer
// it gets.
type packetCase struct {
	name string
	req  *dhcpv4.DHCPv4
	want dhcpv4.MessageType // none: no reply
}

// packetCases are the kinds of answer perfdhcp and real clients get from
// benchPool(10000).
func packetCases(b *testing.B) []packetCase {
	const mac = "52:54:00:00:12:34" // 10.77.19.52 in benchPool
	leased := netip.MustParseAddr("10.77.19.52")
	server := netip.MustParseAddr("10.77.0.2") // labtest.Pool's server
	relayed := dhcp4test.Discover(b, mac)
	relayed.GatewayIPAddr = net.IPv4(10, 77, 0, 3).To4()
	return []packetCase{
		{"DISCOVER-OFFER", dhcp4test.Discover(b, mac), dhcpv4.MessageTypeOffer},
		{"relayed DISCOVER-OFFER", relayed, dhcpv4.MessageTypeOffer},
		{"REQUEST-ACK", dhcp4test.Selecting(b, mac, server, leased), dhcpv4.MessageTypeAck},
		{"renewing REQUEST-ACK", dhcp4test.Renewing(b, mac, leased), dhcpv4.MessageTypeAck},
		{"REQUEST-NAK", dhcp4test.Selecting(b, mac, server, leased.Next()), dhcpv4.MessageTypeNak},
		{"unknown DISCOVER", dhcp4test.Discover(b, "52:54:00:ff:ff:ff"), dhcpv4.MessageTypeNone},
	}
}

// BenchmarkServePacket is BenchmarkPacket's cases as Serve runs them:
// decode the datagram into a reused message (dhcp4wire.Decode), then handle it (decide, build the reply, pick its
// destination, encode it, send it to a writer that keeps it). Unlike
// BenchmarkPacket, whose RespondAt returns a reply the caller owns, it
// measures the pooled reply path.
func BenchmarkServePacket(b *testing.B) {
	a := newAgent(b, benchPool(10000), logr.Discard())
	peer := netip.AddrPortFrom(dhcp4.Broadcast().Addr(), dhcp4.ClientPort)
	for _, tt := range packetCases(b) {
		b.Run(tt.name, func(b *testing.B) {
			wire := tt.req.ToBytes()
			w := &captureWriter{last: make([]byte, 0, 1500)}
			var m dhcpv4.DHCPv4
			b.ReportAllocs()
			for b.Loop() {
				if err := dhcp4wire.Decode(&m, wire); err != nil {
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
