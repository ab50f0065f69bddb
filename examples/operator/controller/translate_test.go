package controller

import (
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go4.org/netipx"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/agent"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

var netipComparers = cmp.Options{
	cmpopts.EquateComparable(netip.Addr{}, netip.Prefix{}, netipx.IPRange{}),
}

func TestBuildPoolSpec(t *testing.T) {
	a, r := netip.MustParseAddr, netipx.MustParseIPRange
	tests := []struct {
		name    string
		in      v1alpha1.IPPoolSpec
		want    ipam.Spec
		wantErr string // in the error, which wraps ipam.ErrInvalidSpec
	}{
		{
			name: "IPv4 with range, exclusions of each form, server and router",
			in: v1alpha1.IPPoolSpec{
				CIDR: "10.0.0.0/24", RangeStart: "10.0.0.10", RangeEnd: "10.0.0.200",
				Exclude:  []string{"10.0.0.50", "10.0.0.60-10.0.0.69", "10.0.0.128/28"},
				ServerIP: "10.0.0.2", Router: "10.0.0.1",
			},
			want: ipam.Spec{
				Prefix: netip.MustParsePrefix("10.0.0.0/24"), Start: a("10.0.0.10"), End: a("10.0.0.200"),
				Exclude:  []netipx.IPRange{r("10.0.0.50-10.0.0.50"), r("10.0.0.60-10.0.0.69"), r("10.0.0.128-10.0.0.143")},
				Reserved: []netip.Addr{a("10.0.0.2"), a("10.0.0.1")},
				Owners:   ipam.MACOwners,
			},
		},
		{
			name: "IPv6 sequential, router outside the prefix is not reserved",
			in:   v1alpha1.IPPoolSpec{CIDR: "fd00:1::/64", Router: "fd00:2::1", Strategy: v1alpha1.StrategySequential},
			want: ipam.Spec{Prefix: netip.MustParsePrefix("fd00:1::/64"), Strategy: ipam.Sequential, Owners: ipam.MACOwners},
		},
		{
			name: "router of the other family (dual stack) is not reserved",
			in:   v1alpha1.IPPoolSpec{CIDR: "10.20.0.0/24", Router: "fd00::1"},
			want: ipam.Spec{Prefix: netip.MustParsePrefix("10.20.0.0/24"), Owners: ipam.MACOwners},
		},
		{name: "bad CIDR", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/33"}, wantErr: `cidr "10.0.0.0/33"`},
		{
			name:    "CIDR with host bits",
			in:      v1alpha1.IPPoolSpec{CIDR: "10.0.0.1/24"},
			wantErr: `cidr "10.0.0.1/24": prefix has host bits set (want 10.0.0.0/24)`,
		},
		{name: "bad range start", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24", RangeStart: "10.0.0"}, wantErr: `rangeStart "10.0.0"`},
		{name: "start outside the prefix", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24", RangeStart: "10.0.1.1"}, wantErr: "outside prefix"},
		{
			name:    "bad exclusion",
			in:      v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{"10.0.0.9-10.0.0.1"}},
			wantErr: `exclude[0] "10.0.0.9-10.0.0.1": from 10.0.0.9 is after to 10.0.0.1`,
		},
		{
			name:    "exclusion with host bits is not masked",
			in:      v1alpha1.IPPoolSpec{CIDR: "10.20.0.0/24", Exclude: []string{"10.20.0.5", "10.20.0.77/24"}},
			wantErr: `exclude[1] "10.20.0.77/24": prefix has host bits set (want 10.20.0.0/24)`,
		},
		{name: "exclusion of the other family", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{"fd00::1"}}, wantErr: "fd00::1"},
		{
			name:    "IPv4-mapped server IP",
			in:      v1alpha1.IPPoolSpec{CIDR: "10.20.0.0/24", ServerIP: "::ffff:10.20.0.2"},
			wantErr: `serverIP "::ffff:10.20.0.2": IPv4-mapped IPv6 address: write 10.20.0.2`,
		},
		{name: "bad strategy", in: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24", Strategy: "Random"}, wantErr: `strategy "Random"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, err := buildPool(&v1alpha1.IPPool{Spec: tt.in})
			if tt.wantErr != "" {
				if !errors.Is(err, ipam.ErrInvalidSpec) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("buildPool() error = %v, want ipam.ErrInvalidSpec containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("buildPool() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, p.Spec(), netipComparers); diff != "" {
				t.Errorf("buildPool() spec (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteStats(t *testing.T) {
	tests := []struct {
		name   string
		spec   v1alpha1.IPPoolSpec
		owners []string
		want   v1alpha1.IPPoolStatus // Allocated nil: only count the markers
	}{
		{
			name: "owners, reserved in range, excluded in range only",
			spec: v1alpha1.IPPoolSpec{
				CIDR: "10.0.0.0/29", RangeStart: "10.0.0.2",
				Exclude: []string{"10.0.0.0/31", "10.0.0.4"}, ServerIP: "10.0.0.2", Router: "10.0.0.1",
			},
			owners: []string{"52:54:00:00:00:01", "52-54-00-00-00-02"},
			want: v1alpha1.IPPoolStatus{
				Allocated: map[string]string{
					"10.0.0.2": ipam.MarkerReserved, "10.0.0.4": ipam.MarkerExcluded,
					"10.0.0.3": "52:54:00:00:00:01", "10.0.0.5": "52:54:00:00:00:02",
				},
				Size: "5", Used: "2", Available: "1",
			},
		},
		{
			name:   "a huge IPv6 exclusion writes a bounded number of markers",
			spec:   v1alpha1.IPPoolSpec{CIDR: "fd00::/64", Exclude: []string{"fd00::/80"}},
			owners: []string{"52:54:00:00:00:01"},
			want:   v1alpha1.IPPoolStatus{Size: "18446744073709551615", Used: "1", Available: "18446462598732840959"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &v1alpha1.IPPool{Spec: tt.spec}
			p, _, err := buildPool(obj)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range tt.owners {
				if _, err := p.Allocate(o); err != nil {
					t.Fatal(err)
				}
			}
			writeStats(&obj.Status, p)
			got := obj.Status
			if tt.want.Allocated == nil {
				if n := countValue(got.Allocated, ipam.MarkerExcluded); n != ipam.MaxExcludedMarkers {
					t.Errorf("writeStats() wrote %d EXCLUDED markers, want the cap %d", n, ipam.MaxExcludedMarkers)
				}
				got.Allocated = nil
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("writeStats() (-want +got):\n%s", diff)
			}
			// The status restores the same pool.
			back, problems, err := buildPool(obj)
			if err != nil || len(problems) > 0 {
				t.Fatalf("buildPool(status of writeStats()) = problems %v, error %v", problems, err)
			}
			if diff := cmp.Diff(p.Snapshot(), back.Snapshot(), netipComparers); diff != "" {
				t.Errorf("restored snapshot (-want +got):\n%s", diff)
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

// TestOperatorAndAgentDeriveTheSamePool feeds the same IPPool object, as
// JSON, to the operator's path (the typed object the API server's JSON
// decodes into, buildPool) and to the DHCP agent's (poolsource.DecodePool,
// Pool.Config, Agent.Apply): both go through IPPoolSpec.SpecText and
// ipam.SpecText.Parse, so they derive the same ipam.Spec, or fail with the
// same error, which the agent wraps.
func TestOperatorAndAgentDeriveTheSamePool(t *testing.T) {
	base := func() v1alpha1.IPPool {
		return v1alpha1.IPPool{
			TypeMeta:   metav1.TypeMeta{APIVersion: "network.vmnetkit.dev/v1alpha1", Kind: "IPPool"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "lab", ResourceVersion: "42"},
			Spec: v1alpha1.IPPoolSpec{
				Network: "br-lab", CIDR: "10.20.0.0/24", RangeStart: "10.20.0.10", RangeEnd: "10.20.0.200",
				Exclude:  []string{"10.20.0.50-10.20.0.59", "10.20.0.77", "10.20.0.128/28"},
				ServerIP: "10.20.0.2", Router: "10.20.0.1", DNS: []string{"10.20.0.2"}, Strategy: v1alpha1.StrategySequential,
			},
			Status: v1alpha1.IPPoolStatus{Allocated: map[string]string{
				"10.20.0.10": "52:54:00:aa:bb:01",
				"10.20.0.11": "52-54-00-AA-BB-02", // another spelling of a MAC
				"10.20.0.2":  ipam.MarkerReserved,
				"10.20.0.50": ipam.MarkerExcluded,
			}},
		}
	}
	a, r := netip.MustParseAddr, netipx.MustParseIPRange
	tests := []struct {
		name    string
		change  func(*v1alpha1.IPPool)
		want    ipam.Spec
		wantErr string // in both errors
	}{
		{
			name:   "a valid pool",
			change: func(*v1alpha1.IPPool) {},
			want: ipam.Spec{
				Prefix: netip.MustParsePrefix("10.20.0.0/24"), Start: a("10.20.0.10"), End: a("10.20.0.200"),
				Exclude:  []netipx.IPRange{r("10.20.0.50-10.20.0.59"), r("10.20.0.77-10.20.0.77"), r("10.20.0.128-10.20.0.143")},
				Reserved: []netip.Addr{a("10.20.0.2"), a("10.20.0.1")},
				Strategy: ipam.Sequential, Owners: ipam.MACOwners,
			},
		},
		{
			name:    "an IPv4-mapped server IP",
			change:  func(p *v1alpha1.IPPool) { p.Spec.ServerIP = "::ffff:10.20.0.2" },
			wantErr: `ipam: spec serverIP "::ffff:10.20.0.2": IPv4-mapped IPv6 address: write 10.20.0.2`,
		},
		{
			name:    "an exclusion prefix with host bits",
			change:  func(p *v1alpha1.IPPool) { p.Spec.Exclude = []string{"10.20.0.50-10.20.0.59", "10.20.0.77/24"} },
			wantErr: `ipam: spec exclude[1] "10.20.0.77/24": prefix has host bits set (want 10.20.0.0/24)`,
		},
		{
			name:    "a bad strategy",
			change:  func(p *v1alpha1.IPPool) { p.Spec.Strategy = "Random" },
			wantErr: `ipam: spec strategy "Random": want "Lowest" or "Sequential"`,
		},
		{
			name:    "an unmasked cidr",
			change:  func(p *v1alpha1.IPPool) { p.Spec.CIDR = "10.20.0.1/24" },
			wantErr: `ipam: spec cidr "10.20.0.1/24": prefix has host bits set (want 10.20.0.0/24)`,
		},
		{
			name: "two bad fields",
			change: func(p *v1alpha1.IPPool) {
				p.Spec.RangeStart, p.Spec.Router = "10.20.0.300", "::ffff:10.20.0.1"
			},
			wantErr: `ipam: spec rangeStart "10.20.0.300": IPv4 field has value >255: invalid address: invalid spec` + "\n" +
				`ipam: spec router "::ffff:10.20.0.1": IPv4-mapped IPv6 address: write 10.20.0.1`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := base()
			tt.change(&obj)
			data, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}

			// The operator's path.
			var typed v1alpha1.IPPool
			if err := json.Unmarshal(data, &typed); err != nil {
				t.Fatal(err)
			}
			opPool, _, opErr := buildPool(&typed)

			// The agent's path.
			agentObj, err := poolsource.DecodePool(data)
			if err != nil {
				t.Fatal(err)
			}
			agentSpec, _, _, agentErr := agentObj.Config()

			if tt.wantErr != "" {
				for side, err := range map[string]error{"operator": opErr, "agent": agentErr} {
					if !errors.Is(err, ipam.ErrInvalidSpec) || !strings.Contains(fmtErr(err), tt.wantErr) {
						t.Errorf("%s error = %v; want ipam.ErrInvalidSpec containing %q", side, err, tt.wantErr)
					}
				}
				if opErr != nil && agentErr != nil && !strings.Contains(agentErr.Error(), opErr.Error()) {
					t.Errorf("the agent's error does not hold the operator's:\nagent:    %v\noperator: %v", agentErr, opErr)
				}
				return
			}
			if opErr != nil || agentErr != nil {
				t.Fatalf("operator error = %v, agent error = %v; want none", opErr, agentErr)
			}
			if diff := cmp.Diff(tt.want, opPool.Spec(), netipComparers); diff != "" {
				t.Errorf("operator spec (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(opPool.Spec(), agentSpec, netipComparers); diff != "" {
				t.Errorf("agent spec (-operator +agent):\n%s", diff)
			}
			// And the same allocations: the agent leases each address to
			// the MAC the operator's pool gives it.
			ag := agent.New(slog.New(slog.DiscardHandler))
			if u, err := ag.Apply(agentObj); err != nil || len(u.Problems) > 0 {
				t.Fatalf("agent Apply = %v, problems %v", err, u.Problems)
			}
			leased := map[netip.Addr]string{}
			for l := range ag.Table().All() {
				leased[l.Addr] = l.MAC.String()
			}
			if diff := cmp.Diff(maps.Collect(opPool.All()), leased, netipComparers); diff != "" {
				t.Errorf("agent leases (-operator +agent):\n%s", diff)
			}
		})
	}
}

// fmtErr is err's text, "" for nil.
func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzBuildPool checks that no IPPool makes the operator's translation
// panic, that whatever spec it accepts ipam.New accepts too, and that the
// status it writes restores the same pool without a problem.
func FuzzBuildPool(f *testing.F) {
	f.Add("10.0.0.0/24", "10.0.0.10", "10.0.0.200", "10.0.0.50-10.0.0.59", "10.0.0.1", "10.0.0.9", "52:54:00:aa:bb:cc")
	f.Add("fd00::/64", "", "", "fd00::/120", "fd00::1", "fd00::1", "x")
	f.Add("10.0.0.0/31", "", "", "10.0.0.0", "", "10.0.0.1", "5254.00aa.bbcc")
	f.Add("::/0", "::1", "::", "::/1", "1.2.3.4", "EXCLUDED", "RESERVED")
	f.Add("10.0.0.0/24", "", "", "10.0.0.77/24", "::ffff:10.0.0.1", "::ffff:10.0.0.2", "52:54:00:aa:bb:cc")
	f.Fuzz(func(t *testing.T, cidr, start, end, exclude, router, key, owner string) {
		obj := &v1alpha1.IPPool{
			Spec:   v1alpha1.IPPoolSpec{CIDR: cidr, RangeStart: start, RangeEnd: end, Exclude: []string{exclude}, Router: router},
			Status: v1alpha1.IPPoolStatus{Allocated: map[string]string{key: owner}},
		}
		p, _, err := buildPool(obj)
		if err != nil {
			return
		}
		if _, err := ipam.New(p.Spec()); err != nil {
			t.Fatalf("buildPool accepted a spec ipam.New rejects: %v", err)
		}
		writeStats(&obj.Status, p)
		back, problems, err := buildPool(obj)
		if err != nil || len(problems) > 0 {
			t.Fatalf("buildPool(status of writeStats()) = problems %v, error %v", problems, err)
		}
		if !maps.Equal(maps.Collect(p.All()), maps.Collect(back.All())) {
			t.Fatalf("restored allocations differ: %v, %v", maps.Collect(p.All()), maps.Collect(back.All()))
		}
	})
}

func TestParseNIC(t *testing.T) {
	tests := []struct {
		name     string
		nic      v1alpha1.NIC
		wantMAC  string
		wantAddr netip.Addr
		wantErr  string
	}{
		{name: "upper case dashes", nic: v1alpha1.NIC{MAC: "52-54-00-AA-BB-CC", Pool: "p"}, wantMAC: "52:54:00:aa:bb:cc"},
		{name: "with address", nic: v1alpha1.NIC{MAC: "52:54:00:aa:bb:cc", Address: "fd00::5"}, wantMAC: "52:54:00:aa:bb:cc", wantAddr: netip.MustParseAddr("fd00::5")},
		{name: "bad MAC", nic: v1alpha1.NIC{MAC: "52:54:00"}, wantErr: `nic "52:54:00"`},
		// net.ParseMAC takes these; an IPPool's pool (ipam.MACOwners) does not.
		{name: "8-byte EUI-64", nic: v1alpha1.NIC{MAC: "02:00:5e:10:00:00:00:01"}, wantErr: `nic "02:00:5e:10:00:00:00:01"`},
		{name: "20-byte InfiniBand", nic: v1alpha1.NIC{MAC: "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01"}, wantErr: "not a MAC address"},
		{name: "bad address", nic: v1alpha1.NIC{MAC: "52:54:00:aa:bb:cc", Address: "10.0.0.256"}, wantErr: `ParseAddr("10.0.0.256")`},
		{
			name:    "IPv4-mapped address",
			nic:     v1alpha1.NIC{MAC: "52:54:00:aa:bb:cc", Address: "::ffff:10.0.0.5"},
			wantErr: "IPv4-mapped IPv6 address: write 10.0.0.5",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mac, addr, err := parseNIC(tt.nic)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseNIC() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseNIC() error = %v", err)
			}
			if mac != tt.wantMAC || addr != tt.wantAddr {
				t.Errorf("parseNIC() = %q, %v; want %q, %v", mac, addr, tt.wantMAC, tt.wantAddr)
			}
		})
	}
}
