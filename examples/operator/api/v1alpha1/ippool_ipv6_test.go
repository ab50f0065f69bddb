package v1alpha1

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/ipam"
)

// dualStack is a valid dual-stack spec: an IPv4 /24 and an IPv6 /64.
func dualStack() IPPoolSpec {
	return IPPoolSpec{
		Network: "br-lab", CIDR: "192.168.30.0/24", ServerIP: "192.168.30.251", Router: "192.168.30.1",
		RangeStart: "192.168.30.2", RangeEnd: "192.168.30.250",
		IPv6: &IPPoolIPv6Spec{
			CIDR: "fd00:30::/64", RangeStart: "fd00:30::100", Exclude: []string{"fd00:30::200-fd00:30::2ff"},
			Reserved: []string{"fd00:30::1"}, DNS: []string{"fd00:30::53"}, DomainSearch: []string{"lab.example"},
			PreferredLifetime: &metav1.Duration{Duration: 30 * time.Minute},
			ValidLifetime:     &metav1.Duration{Duration: time.Hour},
		},
	}
}

// TestValidateNamesIPv6Fields checks IPPoolSpec.Validate: each bad address
// field of the IPv6 part is an ipam.FieldError named as the IPPool names
// it, below ipv6, after the IPv4 part's; a /64 or wider range is valid (no
// cap). A bad DHCPv6 option does not stop the operator (the agent drops it
// and serves the rest, as for IPv4): Validate accepts it and
// ParseOptions names it.
func TestValidateNamesIPv6Fields(t *testing.T) {
	tests := []struct {
		name    string
		change  func(s *IPPoolSpec)
		want    []string // Validate's FieldErrors' fields, in order; nil: valid
		options []string // ParseOptions' FieldErrors' fields; nil: none
	}{
		{"valid dual stack", func(*IPPoolSpec) {}, nil, nil},
		{"a /64 range has no cap", func(s *IPPoolSpec) { s.IPv6.RangeStart, s.IPv6.Exclude = "", nil }, nil, nil},
		{"a /48 range has no cap", func(s *IPPoolSpec) {
			s.IPv6 = &IPPoolIPv6Spec{CIDR: "fd00:30::/48"}
		}, nil, nil},
		{"IPv6-only pool without spec.ipv6 is still valid", func(s *IPPoolSpec) {
			*s = IPPoolSpec{CIDR: "fd00:30::/64", Router: "fd00:30::1"}
		}, nil, nil},
		{"zero lifetimes are not set", func(s *IPPoolSpec) {
			s.IPv6.PreferredLifetime, s.IPv6.ValidLifetime = &metav1.Duration{}, &metav1.Duration{}
		}, nil, nil},
		{"spec.cidr IPv6 beside spec.ipv6", func(s *IPPoolSpec) {
			s.CIDR, s.ServerIP, s.Router, s.RangeStart, s.RangeEnd = "fd00:31::/64", "", "", "", ""
		}, []string{"cidr"}, nil},
		{"ipv6.cidr IPv4", func(s *IPPoolSpec) { s.IPv6 = &IPPoolIPv6Spec{CIDR: "10.0.0.0/24"} }, []string{"ipv6.cidr"}, nil},
		{"ipv6.cidr host bits", func(s *IPPoolSpec) { s.IPv6.CIDR = "fd00:30::1/64" }, []string{"ipv6.cidr"}, nil},
		{"ipv6.cidr missing", func(s *IPPoolSpec) { s.IPv6.CIDR = "" }, []string{"ipv6.cidr"}, nil},
		{"ipv6.rangeStart and rangeEnd", func(s *IPPoolSpec) {
			s.IPv6.RangeStart, s.IPv6.RangeEnd = "fd00:30::zz", "end"
		}, []string{"ipv6.rangeStart", "ipv6.rangeEnd"}, nil},
		{"ipv6.exclude keeps its index", func(s *IPPoolSpec) {
			s.IPv6.Exclude = []string{"fd00:30::5", "fd00:30::6", "fd00:30::7/64"}
		}, []string{"ipv6.exclude[2]"}, nil},
		{"ipv6.reserved keeps its index", func(s *IPPoolSpec) {
			s.IPv6.Reserved = []string{"fd00:30::1", "router"}
		}, []string{"ipv6.reserved[1]"}, nil},
		{"ipv6.dns IPv4 and garbage", func(s *IPPoolSpec) {
			s.IPv6.DNS = []string{"fd00:30::53", "192.168.30.53", "dns", "fe80::1%eth0"}
		}, nil, []string{"ipv6.dns[1]", "ipv6.dns[2]", "ipv6.dns[3]"}},
		{"ipv6.domainSearch", func(s *IPPoolSpec) {
			s.IPv6.DomainSearch = []string{"lab.example", "-bad.example"}
		}, nil, []string{"ipv6.domainSearch[1]"}},
		{"ipv6.preferredLifetime longer than valid", func(s *IPPoolSpec) {
			s.IPv6.PreferredLifetime = &metav1.Duration{Duration: 2 * time.Hour}
		}, nil, []string{"ipv6.preferredLifetime"}},
		{"ipv6.validLifetime too long, preferredLifetime negative", func(s *IPPoolSpec) {
			s.IPv6.PreferredLifetime = &metav1.Duration{Duration: -time.Second}
			s.IPv6.ValidLifetime = &metav1.Duration{Duration: 1 << 62}
		}, nil, []string{"ipv6.preferredLifetime", "ipv6.validLifetime"}},
		{"IPv4 part first, then the IPv6 part", func(s *IPPoolSpec) {
			s.Exclude = []string{"192.168.30.77/24"}
			s.IPv6.RangeEnd = "fd00:31::1"
		}, []string{"exclude[0]", "ipv6.rangeEnd"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := dualStack()
			tt.change(&s)
			err := s.Validate()
			var got []string
			for _, fe := range ipam.FieldErrors(err) {
				got = append(got, fe.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s\nerror: %v", diff, err)
			}
			if (err != nil) != (tt.want != nil) || (err != nil && !errors.Is(err, ipam.ErrInvalidSpec)) {
				t.Errorf("Validate() = %v, want an error wrapping ipam.ErrInvalidSpec exactly when fields are named", err)
			}
			if s.IPv6 == nil {
				return
			}
			_, err = s.IPv6.ParseOptions()
			got = nil
			for _, fe := range ipam.FieldErrors(err) {
				got = append(got, fe.Field)
			}
			if diff := cmp.Diff(tt.options, got); diff != "" {
				t.Errorf("ParseOptions fields (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

// TestParseIPv6Spec checks the IPv6 part's ipam.Spec: its addresses, the
// pool's strategy and MAC owners, and its size with no cap.
func TestParseIPv6Spec(t *testing.T) {
	s := dualStack()
	s.Strategy = StrategySequential
	spec, ok, err := s.ParseIPv6Spec()
	if err != nil || !ok {
		t.Fatalf("ParseIPv6Spec() = _, %v, %v; want a spec", ok, err)
	}
	want := ipam.SpecText{CIDR: "fd00:30::/64", Start: "fd00:30::100", Exclude: []string{"fd00:30::200-fd00:30::2ff"},
		Reserved: []string{"fd00:30::1"}, Strategy: "Sequential", Owners: "MAC"}
	if diff := cmp.Diff(want, s.IPv6.SpecText(s.Strategy)); diff != "" {
		t.Errorf("SpecText (-want +got):\n%s", diff)
	}
	p, err := ipam.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	// fd00:30::100 to the last usable address of the /64 (the IPv6 subnet-router anycast ::0 is below the start).
	if got, want := p.Stats().Size.String(), "18446744073709551360"; got != want {
		t.Errorf("size of the IPv6 part = %s, want %s (2^64 - 256)", got, want)
	}
	if _, ok, _ := (IPPoolSpec{CIDR: "10.0.0.0/24"}).ParseIPv6Spec(); ok {
		t.Errorf("ParseIPv6Spec of an IPv4-only pool reports an IPv6 part")
	}
}

// TestParseIPv6Options checks the DHCPv6 options: parsed values, and a bad
// value left out of a usable result.
func TestParseIPv6Options(t *testing.T) {
	s := dualStack().IPv6
	s.DNS = append(s.DNS, "10.0.0.53")
	got, err := s.ParseOptions()
	want := IPv6Options{DNS: []netip.Addr{netip.MustParseAddr("fd00:30::53")}, DomainSearch: []string{"lab.example"},
		PreferredLifetime: 30 * time.Minute, ValidLifetime: time.Hour}
	if diff := cmp.Diff(want, got, cmpopts.EquateComparable(netip.Addr{})); diff != "" {
		t.Errorf("ParseOptions() (-want +got):\n%s", diff)
	}
	if fes := ipam.FieldErrors(err); len(fes) != 1 || fes[0].Field != "ipv6.dns[1]" || fes[0].Value != "10.0.0.53" {
		t.Errorf("ParseOptions() error = %v, want one for ipv6.dns[1] \"10.0.0.53\"", err)
	}
}
