package v1alpha1

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/ipam"
)

func TestIPPoolSpecSpecText(t *testing.T) {
	tests := []struct {
		name string
		in   IPPoolSpec
		want ipam.SpecText
	}{
		{
			name: "every field that describes addresses",
			in: IPPoolSpec{
				Network: "br-lab", CIDR: "10.20.0.0/24", RangeStart: "10.20.0.10", RangeEnd: "10.20.0.200",
				Exclude:  []string{"10.20.0.50-10.20.0.59", "10.20.0.77/24"},
				ServerIP: "10.20.0.2", Router: "10.20.0.1", Strategy: StrategySequential,
				DNS: []string{"10.20.0.2"}, NTP: []string{"10.20.0.3"}, Domain: "lab.example", Paused: true,
			},
			want: ipam.SpecText{
				CIDR: "10.20.0.0/24", Start: "10.20.0.10", End: "10.20.0.200",
				Exclude:  []string{"10.20.0.50-10.20.0.59", "10.20.0.77/24"},
				Reserved: []string{"10.20.0.2", "10.20.0.1"}, Strategy: "Sequential", Owners: "MAC",
			},
		},
		{
			name: "router alone is reserved[0]",
			in:   IPPoolSpec{CIDR: "fd00::/64", Router: "fd00::1"},
			want: ipam.SpecText{CIDR: "fd00::/64", Reserved: []string{"fd00::1"}, Owners: "MAC"},
		},
		{
			name: "empty lists are nil",
			in:   IPPoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{}},
			want: ipam.SpecText{CIDR: "10.0.0.0/24", Owners: "MAC"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.SpecText()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SpecText() (-want +got):\n%s", diff)
			}
			if got.Exclude == nil != (len(tt.in.Exclude) == 0) {
				t.Errorf("SpecText().Exclude = %#v, want nil exactly when empty", got.Exclude)
			}
		})
	}
}

// TestIPPoolSpecSpecTextCopies checks that the SpecText shares no list with
// the spec it came from.
func TestIPPoolSpecSpecTextCopies(t *testing.T) {
	in := IPPoolSpec{CIDR: "10.0.0.0/24", Exclude: []string{"10.0.0.7"}}
	got := in.SpecText()
	got.Exclude[0] = "10.0.0.8"
	if in.Exclude[0] != "10.0.0.7" {
		t.Errorf("changing SpecText().Exclude changed the spec's exclude to %q", in.Exclude[0])
	}
}

// TestStrategyNames checks that the strategy names the CRD allows are the
// core's.
func TestStrategyNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		want ipam.Strategy
	}{{StrategyLowest, ipam.Lowest}, {StrategySequential, ipam.Sequential}} {
		if got, err := ipam.ParseStrategy(tt.name); err != nil || got != tt.want {
			t.Errorf("ipam.ParseStrategy(%q) = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}

// ParseSpec names each bad field as the IPPool does, whichever of serverIP
// and router are set.
func TestParseSpecNamesIPPoolFields(t *testing.T) {
	tests := []struct {
		name string
		in   IPPoolSpec
		want []string // the FieldErrors' fields, in order
	}{
		{"rangeStart and rangeEnd", IPPoolSpec{CIDR: "10.0.0.0/24", RangeStart: "10.0.0", RangeEnd: "x"}, []string{"rangeStart", "rangeEnd"}},
		{"serverIP", IPPoolSpec{CIDR: "10.0.0.0/24", ServerIP: "::ffff:10.0.0.2"}, []string{"serverIP"}},
		{"router alone", IPPoolSpec{CIDR: "10.0.0.0/24", Router: "::ffff:10.0.0.1"}, []string{"router"}},
		{"server and router", IPPoolSpec{CIDR: "10.0.0.0/24", ServerIP: "10.0.0.2", Router: "gw"}, []string{"router"}},
		{"exclude keeps its index, cidr its name", IPPoolSpec{CIDR: "10.0.0.1/24", Exclude: []string{"10.0.0.5", "10.0.0.77/24"}}, []string{"cidr", "exclude[1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.in.ParseSpec()
			if !errors.Is(err, ipam.ErrInvalidSpec) {
				t.Fatalf("ParseSpec() error = %v, want ipam.ErrInvalidSpec", err)
			}
			var got []string
			for _, fe := range ipam.FieldErrors(err) {
				got = append(got, fe.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}
