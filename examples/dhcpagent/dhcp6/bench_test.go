package dhcp6_test

import (
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
)

// BenchmarkExchange is one answer, per message type: decode the datagram,
// decide, encode the reply, in reused memory (what the server does per
// packet, without its socket).
//
//	go test -run '^$' -bench BenchmarkExchange ./dhcpagent/dhcp6
func BenchmarkExchange(b *testing.B) {
	tb := testTable(b)
	for _, x := range exchanges() {
		b.Run(x.name, func(b *testing.B) {
			var req dhcp6wire.Packet
			var r dhcp6.Reply
			out := make([]byte, 0, 1500)
			b.ReportAllocs()
			for b.Loop() {
				if err := dhcp6wire.Decode(&req, x.b); err != nil {
					b.Fatal(err)
				}
				if _, err := dhcp6.Decide(&r, &req, x.a, tb); err != nil {
					b.Fatal(err)
				}
				out = r.Append(out[:0])
			}
		})
	}
}
