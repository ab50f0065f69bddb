package controller

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

func TestIPAMSpec(t *testing.T) {
	tests := []struct {
		name    string
		in      v1alpha1.IPPoolSpec
		want    ipam.Spec
		wantErr error
	}{
		{
			name: "IPv4 with range, exclusions of each form, server and router",
			in: v1alpha1.IPPoolSpec{
				CIDR: "10.0.0.0/24", RangeStart: "10.0.0.10", RangeEnd: "10.0.0.200",
				Exclude:  []string{"10.0.0.50", "10.0.0.60-10.0.0.69", "10.0.0.128/28"},
				ServerIP: "10.0.0.2", Router: "10.0.0.1",
			},
			want: ipam.Spec{
				Prefix: netip.MustParsePrefix("10.0.0.0/24"),
				Start:  netip.MustParseAddr("10.0.0.10"), End: netip.MustParseAddr("10.0.0.200"),
				Exclude: []netipx.IPRange{
					netipx.MustParseIPRange("10.0.0.50-10.0.0.50"),
					netipx.MustParseIPRange("10.0.0.60-10.0.0.69"),
					netipx.MustParseIPRange("10.0.0.128-10.0.0.143"),
				},
				Reserved: []netip.Addr{netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.1")},
			},
		},
		{
			name: "IPv6 sequential, router outside the prefix is not reserved",
			in:   v1alpha1.IPPoolSpec{CIDR: "fd00:1::/64", Router: "fd00:2::1", Strategy: v1alpha1.StrategySequential},
			want: ipam.Spec{Prefix: netip.MustParsePrefix("fd00:1::/64"), Strategy: ipam.Sequential},
		},
		{name: "bad CIDR", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/33"}, wantErr: errSpec},
		{name: "bad range start", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24", RangeStart: "10.0.0"}, wantErr: errSpec},
		{name: "bad exclusion", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{"10.0.0.9-10.0.0.1"}}, wantErr: errSpec},
		{name: "bad strategy", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24", Strategy: "Random"}, wantErr: errSpec},
		{name: "non-canonical CIDR", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.1/24"}, wantErr: ipam.ErrInvalidSpec},
		{name: "start outside the prefix", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24", RangeStart: "10.0.1.1"}, wantErr: ipam.ErrInvalidSpec},
		{name: "exclusion of the other family", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{"fd00::1"}}, wantErr: ipam.ErrInvalidSpec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ipamSpec(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ipamSpec() error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ipamSpec() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
				cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }),
				cmp.Comparer(func(a, b netipx.IPRange) bool { return a == b })); diff != "" {
				t.Errorf("ipamSpec() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAllocatedMap(t *testing.T) {
	tests := []struct {
		name   string
		spec   v1alpha1.IPPoolSpec
		owners []string
		want   map[string]string
	}{
		{
			name: "owners, reserved in range, excluded in range only",
			spec: v1alpha1.IPPoolSpec{
				CIDR: "10.0.0.0/29", RangeStart: "10.0.0.2",
				Exclude: []string{"10.0.0.0/31", "10.0.0.4"}, ServerIP: "10.0.0.2", Router: "10.0.0.1",
			},
			owners: []string{"52:54:00:00:00:01", "52:54:00:00:00:02"},
			want: map[string]string{
				"10.0.0.2": "RESERVED", "10.0.0.4": "EXCLUDED",
				"10.0.0.3": "52:54:00:00:00:01", "10.0.0.5": "52:54:00:00:00:02",
			},
		},
		{
			name:   "a huge IPv6 exclusion writes a bounded number of markers",
			spec:   v1alpha1.IPPoolSpec{CIDR: "fd00::/64", Exclude: []string{"fd00::/80"}},
			owners: []string{"52:54:00:00:00:01"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := ipamSpec(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			p, err := ipam.New(spec)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range tt.owners {
				if _, err := p.Allocate(o); err != nil {
					t.Fatal(err)
				}
			}
			got := allocatedMap(p)
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("allocatedMap() (-want +got):\n%s", diff)
				}
			} else if n := countValue(got, v1alpha1.AllocatedExcluded); n != maxExcludedMarkers {
				t.Errorf("allocatedMap() wrote %d EXCLUDED markers, want the cap %d", n, maxExcludedMarkers)
			}
			// The map restores the same pool.
			back, problems, err := restorePool(spec, got)
			if err != nil || len(problems) > 0 {
				t.Fatalf("restorePool(allocatedMap()) = problems %v, error %v", problems, err)
			}
			if diff := cmp.Diff(p.Snapshot().Allocations, back.Snapshot().Allocations,
				cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
				t.Errorf("restored allocations (-want +got):\n%s", diff)
			}
		})
	}
}

func countValue(m map[string]string, v string) int {
	n := 0
	for _, x := range m {
		if x == v {
			n++
		}
	}
	return n
}

func TestParseNIC(t *testing.T) {
	tests := []struct {
		name     string
		nic      v1alpha1.NIC
		wantMAC  string
		wantAddr netip.Addr
		wantErr  bool
	}{
		{name: "upper case dashes", nic: v1alpha1.NIC{MAC: "52-54-00-AA-BB-CC", Pool: "p"}, wantMAC: "52:54:00:aa:bb:cc"},
		{name: "with address", nic: v1alpha1.NIC{MAC: "52:54:00:aa:bb:cc", Address: "fd00::5"}, wantMAC: "52:54:00:aa:bb:cc", wantAddr: netip.MustParseAddr("fd00::5")},
		{name: "bad MAC", nic: v1alpha1.NIC{MAC: "52:54:00"}, wantErr: true},
		{name: "bad address", nic: v1alpha1.NIC{MAC: "52:54:00:aa:bb:cc", Address: "10.0.0.256"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mac, addr, err := parseNIC(tt.nic)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseNIC() error = %v, want error %v", err, tt.wantErr)
			}
			if mac != tt.wantMAC || addr != tt.wantAddr {
				t.Errorf("parseNIC() = %q, %v; want %q, %v", mac, addr, tt.wantMAC, tt.wantAddr)
			}
		})
	}
}

// FuzzIPAMSpec checks that no IPPool spec makes the translation panic, and
// that whatever it accepts the core accepts too.
func FuzzIPAMSpec(f *testing.F) {
	f.Add("10.0.0.0/24", "10.0.0.10", "10.0.0.200", "10.0.0.50-10.0.0.59", "10.0.0.1")
	f.Add("fd00::/64", "", "", "fd00::/120", "fd00::1")
	f.Add("10.0.0.0/31", "", "", "10.0.0.0", "")
	f.Add("::/0", "::1", "::", "::/1", "1.2.3.4")
	f.Add("10.0.0.0/24", "", "", "-", "")
	f.Fuzz(func(t *testing.T, cidr, start, end, exclude, router string) {
		spec, err := ipamSpec(v1alpha1.IPPoolSpec{CIDR: cidr, RangeStart: start, RangeEnd: end, Exclude: []string{exclude}, Router: router})
		if err != nil {
			return
		}
		p, err := ipam.New(spec)
		if err != nil {
			t.Fatalf("ipamSpec accepted a spec ipam.New rejects: %v", err)
		}
		_ = allocatedMap(p)
	})
}
