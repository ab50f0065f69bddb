package ipam

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"
)

func TestAddressListParse(t *testing.T) {
	tests := []struct {
		name      string
		list      AddressList
		want      Spec
		wantTotal string // Size - Excluded - Reserved: what the pool can hand out
	}{
		{
			name: "one CIDR, network and broadcast left out",
			list: AddressList{Addresses: []string{"10.0.0.0/24"}, Prefix: 24},
			want: Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.1"), End: mpa("10.0.0.254")}, wantTotal: "254",
		},
		{
			name: "one CIDR, reserved addresses allocated",
			list: AddressList{Addresses: []string{"10.0.0.0/24"}, Prefix: 24, AllocateReservedIPAddresses: true},
			want: Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.0"), End: mpa("10.0.0.255"), AllocateSubnetEnds: true}, wantTotal: "256",
		},
		{
			name: "non-contiguous with gateway and exclusions",
			list: AddressList{
				Addresses: []string{"10.0.0.64/28", "10.0.0.10-10.0.0.20", "10.0.0.31"},
				Prefix:    24, Gateway: "10.0.0.11", ExcludedAddresses: []string{"10.0.0.15-10.0.0.16", "10.0.0.70"},
			},
			want: Spec{
				Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.10"), End: mpa("10.0.0.79"),
				Exclude: []netipx.IPRange{
					rng("10.0.0.11", "10.0.0.11"), rng("10.0.0.15", "10.0.0.16"),
					rng("10.0.0.21", "10.0.0.30"), rng("10.0.0.32", "10.0.0.63"), rng("10.0.0.70", "10.0.0.70"),
				},
				Reserved: []netip.Addr{mpa("10.0.0.11")},
			},
			wantTotal: "24", // 11 + 1 + 16, less the gateway and three excluded
		},
		{
			name: "gateway at the start moves the start",
			list: AddressList{Addresses: []string{"10.0.0.1-10.0.0.10"}, Prefix: 24, Gateway: "10.0.0.1"},
			want: Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.2"), End: mpa("10.0.0.10")}, wantTotal: "9",
		},
		{
			name: "gateway outside the subnet",
			list: AddressList{Addresses: []string{"10.0.0.1-10.0.0.10"}, Prefix: 24, Gateway: "192.168.0.1"},
			want: Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.1"), End: mpa("10.0.0.10")}, wantTotal: "10",
		},
		{
			name: "excluded partly outside the subnet",
			list: AddressList{Addresses: []string{"10.0.1.250-10.0.1.254"}, Prefix: 24, ExcludedAddresses: []string{"10.0.1.253-10.0.2.10"}},
			want: Spec{Prefix: mpp("10.0.1.0/24"), Start: mpa("10.0.1.250"), End: mpa("10.0.1.252")}, wantTotal: "3",
		},
		{
			name: "only the network address listed: an empty pool",
			list: AddressList{Addresses: []string{"10.0.0.0"}, Prefix: 24},
			want: Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.1"), End: mpa("10.0.0.1"), Exclude: []netipx.IPRange{rng("10.0.0.1", "10.0.0.1")}}, wantTotal: "0",
		},
		{
			name: "IPv4 /31: both addresses",
			list: AddressList{Addresses: []string{"10.0.0.4/31"}, Prefix: 31},
			want: Spec{Prefix: mpp("10.0.0.4/31"), Start: mpa("10.0.0.4"), End: mpa("10.0.0.5")}, wantTotal: "2",
		},
		{
			name: "IPv4 /32",
			list: AddressList{Addresses: []string{"10.0.0.9"}, Prefix: 32},
			want: Spec{Prefix: mpp("10.0.0.9/32"), Start: mpa("10.0.0.9"), End: mpa("10.0.0.9")}, wantTotal: "1",
		},
		{
			name: "IPv6 range of 100,000 in a /64, anycast left out",
			list: AddressList{Addresses: []string{"fd00:1::-fd00:1::1:86a0"}, Prefix: 64, Gateway: "fd00:1::1"},
			want: Spec{Prefix: mpp("fd00:1::/64"), Start: mpa("fd00:1::2"), End: mpa("fd00:1::1:86a0")}, wantTotal: "99999",
		},
		{
			name: "IPv6 anycast allocated",
			list: AddressList{Addresses: []string{"fd00:1::", "fd00:1::5"}, Prefix: 64, AllocateReservedIPAddresses: true},
			want: Spec{Prefix: mpp("fd00:1::/64"), Start: mpa("fd00:1::"), End: mpa("fd00:1::5"), Exclude: []netipx.IPRange{rng("fd00:1::1", "fd00:1::4")}, AllocateSubnetEnds: true}, wantTotal: "2",
		},
		{
			name: "IPv6 subnet across the IPv4-mapped block",
			list: AddressList{Addresses: []string{"::fffe:ffff:fffe-::1:0:0:1"}, Prefix: 64},
			want: Spec{
				Prefix: mpp("::/64"), Start: mpa("::fffe:ffff:fffe"), End: mpa("::1:0:0:1"),
			}, wantTotal: "4",
		},
		{
			name: "prefix 0",
			list: AddressList{Addresses: []string{"10.0.0.5"}, Prefix: 0},
			want: Spec{Prefix: mpp("0.0.0.0/0"), Start: mpa("10.0.0.5"), End: mpa("10.0.0.5")}, wantTotal: "1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.list.Parse()
			if err != nil {
				t.Fatalf("Parse() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpSpecs); diff != "" {
				t.Errorf("Parse() (-want +got):\n%s", diff)
			}
			p, err := New(got)
			if err != nil {
				t.Fatalf("New(Parse()) error: %v", err)
			}
			s := p.Stats()
			if total := s.Free.String(); total != tt.wantTotal {
				t.Errorf("allocatable = %s, want %s (stats %v)", total, tt.wantTotal, s)
			}
		})
	}
}

func TestAddressListParseErrors(t *testing.T) {
	tests := []struct {
		name string
		list AddressList
		want []string // the fields named, in order
	}{
		{name: "no addresses", list: AddressList{Prefix: 24}, want: []string{"addresses"}},
		{name: "bad address", list: AddressList{Addresses: []string{"10.0.0.1", "10.0.0.300"}, Prefix: 24}, want: []string{"addresses[1]"}},
		{name: "host bits set", list: AddressList{Addresses: []string{"10.0.0.5/24"}, Prefix: 24}, want: []string{"addresses[0]"}},
		{name: "mapped address", list: AddressList{Addresses: []string{"::ffff:10.0.0.1"}, Prefix: 120}, want: []string{"addresses[0]"}},
		{name: "mixed families", list: AddressList{Addresses: []string{"10.0.0.1", "fd00::1"}, Prefix: 24}, want: []string{"addresses[1]"}},
		{name: "range backwards", list: AddressList{Addresses: []string{"10.0.0.9-10.0.0.1"}, Prefix: 24}, want: []string{"addresses[0]"}},
		{name: "prefix too long for IPv4", list: AddressList{Addresses: []string{"10.0.0.1"}, Prefix: 33}, want: []string{"prefix"}},
		{name: "prefix negative", list: AddressList{Addresses: []string{"fd00::1"}, Prefix: -1}, want: []string{"prefix"}},
		{name: "prefix too long for IPv6", list: AddressList{Addresses: []string{"fd00::1"}, Prefix: 129}, want: []string{"prefix"}},
		{name: "outside the subnet", list: AddressList{Addresses: []string{"10.0.0.1", "10.0.1.1", "10.0.0.250-10.0.1.5"}, Prefix: 24}, want: []string{"addresses[1]", "addresses[2]"}},
		{name: "bad gateway", list: AddressList{Addresses: []string{"10.0.0.1"}, Prefix: 24, Gateway: "router"}, want: []string{"gateway"}},
		{name: "gateway of the other family", list: AddressList{Addresses: []string{"10.0.0.1"}, Prefix: 24, Gateway: "fd00::1"}, want: []string{"gateway"}},
		{name: "bad and foreign exclusions", list: AddressList{Addresses: []string{"10.0.0.1"}, Prefix: 24, ExcludedAddresses: []string{"10.0.0.2", "x", "fd00::/64"}}, want: []string{"excludedAddresses[1]", "excludedAddresses[2]"}},
		{name: "every field", list: AddressList{Addresses: []string{"10.0.0.1", "y"}, Prefix: 40, Gateway: "z", ExcludedAddresses: []string{"q"}}, want: []string{"addresses[1]", "prefix", "gateway", "excludedAddresses[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.list.Parse()
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("Parse() error = %v, want one wrapping ErrInvalidSpec", err)
			}
			var got []string
			for _, fe := range FieldErrors(err) {
				got = append(got, fe.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

// TestAddressListParseMessage: the error quotes the field and value as the
// user wrote them.
func TestAddressListParseMessage(t *testing.T) {
	_, err := AddressList{Addresses: []string{"10.0.0.1", "10.0.1.1"}, Prefix: 24}.Parse()
	want := `ipam: spec addresses[1] "10.0.1.1": outside subnet 10.0.0.0/24 (the lowest address's /24): invalid spec`
	if err == nil || err.Error() != want {
		t.Errorf("Parse() error =\n%v\nwant\n%s", err, want)
	}
}
