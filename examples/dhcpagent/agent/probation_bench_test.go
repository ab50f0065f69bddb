package agent

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/probation"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// probationSizes are the numbers of addresses on probation the DECLINE
// benchmarks hold steady: a few, and nearly a /16 (the flood of issue 26).
var probationSizes = []int{10, 65000}

// BenchmarkProbationDecline is one Decline with n addresses on probation,
// in steady state: the clock advances by period/n per decline, so that
// each decline of a new address ends the probation of the oldest. Its
// cost must not grow with n (issue 26: walking the set cost 385 ns at 10
// and 1.3 ms at 65,000).
func BenchmarkProbationDecline(b *testing.B) {
	for _, n := range probationSizes {
		b.Run(fmt.Sprintf("held=%d", n), func(b *testing.B) {
			const step = time.Millisecond
			p := probation.NewSet(time.Duration(n) * step)
			addrs := make([]netip.Addr, n+1) // n held, and the next
			for i := range addrs {
				addrs[i] = netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
			}
			mac := leasestore.MustParseMAC(dhcp4test.MACA)
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := range n {
				p.Decline(mac, addrs[i], t0.Add(time.Duration(i)*step))
			}
			i := n
			b.ReportAllocs()
			for b.Loop() {
				p.Decline(mac, addrs[i%len(addrs)], t0.Add(time.Duration(i)*step))
				i++
			}
			if got := p.Len(t0.Add(time.Duration(i-1) * step)); got != n {
				b.Fatalf("%d addresses on probation, want %d", got, n)
			}
		})
	}
}

// BenchmarkServeDecline is one DECLINE as Serve handles it (decode,
// check, probation, count) with n addresses on probation, in steady state
// as in BenchmarkProbationDecline, from a pool of n+1 leases: "accepted"
// with the decline window off, so that every DECLINE puts its address on
// probation; "refused", with the default window, DECLINEs that follow no
// ACK (what a spoofing flood sends).
func BenchmarkServeDecline(b *testing.B) {
	for _, accepted := range []bool{true, false} {
		for _, n := range probationSizes {
			name := fmt.Sprintf("accepted/held=%d", n)
			if !accepted {
				name = fmt.Sprintf("refused/held=%d", n)
			}
			b.Run(name, func(b *testing.B) {
				const step = time.Millisecond
				t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
				now := t0
				opts := []Option{WithProbation(time.Duration(n) * step), WithClock(func() time.Time { return now })}
				if accepted {
					opts = append(opts, WithDeclineWindow(0))
				}
				a := newAgent(b, benchPool(n+1), logr.Discard(), opts...)
				wires := make([][]byte, n+1)
				for i := range wires {
					mac := fmt.Sprintf("52:54:00:%02x:%02x:%02x", i>>16&0xff, i>>8&0xff, i&0xff)
					addr := netip.AddrFrom4([4]byte{10, 77, byte(1 + i>>8), byte(i)})
					wires[i] = dhcp4test.Decline(b, mac, addr).ToBytes()
				}
				w := &captureWriter{}
				peer := netip.AddrPortFrom(dhcp4.Broadcast().Addr(), dhcp4.ClientPort)
				var m dhcpv4.DHCPv4
				handle := func(i int) {
					now = t0.Add(time.Duration(i) * step)
					if err := dhcp4wire.Decode(&m, wires[i%len(wires)]); err != nil {
						b.Fatal(err)
					}
					a.handle(w, peer, &m)
				}
				for i := range n {
					handle(i)
				}
				i := n
				b.ReportAllocs()
				for b.Loop() {
					handle(i)
					i++
				}
				want := 0
				if accepted {
					want = n
				}
				if got := a.Probation().Len(now); got != want {
					b.Fatalf("%d addresses on probation, want %d", got, want)
				}
			})
		}
	}
}
