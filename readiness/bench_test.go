package readiness

import (
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/netiptest"
)

// BenchmarkEvaluate measures a reconcile's call on a typical VM (a DHCP NIC,
// a static uplink, a Node with both families), Strict beside the legacy
// Counting rule as the baseline.
func BenchmarkEvaluate(b *testing.B) {
	in := Input{
		Devices: []Device{{MAC: mac0, DHCP4: true, DHCP6: true}, {MAC: mac1, Static: netiptest.Addrs("192.0.2.10")}},
		NICs: []NIC{
			{MAC: mac0, Addrs: netiptest.Addrs("10.0.0.5", "fe80::5054:ff:fe12:3456", "2001:db8::5")},
			{MAC: mac1, Addrs: netiptest.Addrs("192.0.2.10", "fe80::5054:ff:fe12:3457")},
		},
		NodeAddrs: netiptest.Addrs("10.0.0.5", "2001:db8::5"),
		Ignore:    []netip.Prefix{netip.MustParsePrefix("10.0.0.100/32")},
	}
	for _, p := range []Policy{Strict, Counting} {
		b.Run(p.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if !Evaluate(in, p).Ready {
					b.Fatal("not ready")
				}
			}
		})
	}
}
