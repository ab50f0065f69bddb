package dhcp4

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// TestReplyOptions checks that the options follow the lease exactly: what
// the pool leaves unset is not sent, and the lease time is encoded as the
// 32-bit seconds of RFC 2132.
func TestReplyOptions(t *testing.T) {
	base := map[string]string{
		"1 subnet mask":   "255.255.255.0",
		"53 message type": "OFFER",
		"54 server id":    "10.77.0.2",
	}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name string
		spec func(*poolsource.PoolSpec)
		want map[string]string
	}{
		{
			name: "only the server: no router, DNS, NTP or names; default lease time",
			spec: func(s *poolsource.PoolSpec) {},
			want: with("51 lease time", "3600", "58 renewal time", "1800", "59 rebinding time", "3150"),
		},
		{
			name: "lease time rounds up to whole seconds",
			spec: func(s *poolsource.PoolSpec) { s.LeaseTime = poolsource.Duration(90*time.Second + time.Millisecond) },
			want: with("51 lease time", "91", "58 renewal time", "45", "59 rebinding time", "79"),
		},
		{
			name: "infinite lease: no renewal or rebinding time",
			spec: func(s *poolsource.PoolSpec) { s.LeaseTime = poolsource.Duration(leasestore.MaxLeaseTime) },
			want: with("51 lease time", "4294967295"),
		},
		{
			name: "1-second lease: no renewal or rebinding time",
			spec: func(s *poolsource.PoolSpec) { s.LeaseTime = poolsource.Duration(time.Second) },
			want: with("51 lease time", "1"),
		},
		{
			name: "largest finite lease",
			spec: func(s *poolsource.PoolSpec) { s.LeaseTime = poolsource.Duration(leasestore.MaxLeaseTime - time.Second) },
			want: with("51 lease time", "4294967294", "58 renewal time", "2147483647", "59 rebinding time", "3758096382"),
		},
		{
			name: "router and names; trailing dots dropped",
			spec: func(s *poolsource.PoolSpec) {
				s.Router, s.Domain, s.DomainSearch = "10.77.0.1", "lab.example.", []string{"lab.example.", "example"}
				s.LeaseTime = poolsource.Duration(time.Hour)
			},
			want: with("3 router", "10.77.0.1", "15 domain name", "lab.example", "119 domain search", "lab.example,example",
				"51 lease time", "3600", "58 renewal time", "1800", "59 rebinding time", "3150"),
		},
		{
			name: "a /30 pool",
			spec: func(s *poolsource.PoolSpec) {
				s.CIDR, s.ServerIP, s.LeaseTime = "10.77.0.8/30", "10.77.0.9", poolsource.Duration(time.Hour)
			},
			want: with("1 subnet mask", "255.255.255.252", "54 server id", "10.77.0.9",
				"51 lease time", "3600", "58 renewal time", "1800", "59 rebinding time", "3150"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &poolsource.Pool{Spec: poolsource.PoolSpec{IPPoolSpec: v1alpha1.IPPoolSpec{CIDR: "10.77.0.0/24", ServerIP: "10.77.0.2"}}}
			tt.spec(&p.Spec)
			p.Status.Allocated = map[string]string{"10.77.0.10": dhcp4test.MACA} // usable in the /30 too
			got, err := Reply(dhcp4test.Discover(t, dhcp4test.MACA), storeOf(t, p))
			if err != nil {
				t.Fatalf("Reply: %v", err)
			}
			if diff := cmp.Diff(tt.want, dhcp4test.ViewOf(t, got).Options); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplyIPv6Lease(t *testing.T) {
	prefix := netip.MustParsePrefix("2001:db8::/64")
	snap, problems := ipam.ParseAllocated(ipam.Spec{Prefix: prefix}, map[string]string{"2001:db8::10": dhcp4test.MACA})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	store, bproblems := leasestore.Build(snap, leasestore.Options{ServerIP: netip.MustParseAddr("2001:db8::2")})
	if len(bproblems) > 0 {
		t.Fatal(bproblems)
	}
	if got, err := Reply(dhcp4test.Discover(t, dhcp4test.MACA), store); !errors.Is(err, ErrNotIPv4) || got != nil {
		t.Fatalf("Reply = %v, %v; want nil, ErrNotIPv4", got, err)
	}
}
