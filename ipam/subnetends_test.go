package ipam

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"
)

// TestAllocateSubnetEnds: with AllocateSubnetEnds the whole prefix is
// usable, network, broadcast and subnet-router anycast addresses included;
// without it they are not, except where the prefix has no such address.
func TestAllocateSubnetEnds(t *testing.T) {
	tests := []struct {
		name      string
		spec      Spec
		wantSize  string
		wantFirst string // the first address Allocate hands out
		wantLast  string // the last one before ErrExhausted ("" when not filled)
	}{
		{name: "IPv4 /24 without", spec: Spec{Prefix: mpp("10.0.0.0/24")}, wantSize: "254", wantFirst: "10.0.0.1", wantLast: "10.0.0.254"},
		{name: "IPv4 /24 with", spec: Spec{Prefix: mpp("10.0.0.0/24"), AllocateSubnetEnds: true}, wantSize: "256", wantFirst: "10.0.0.0", wantLast: "10.0.0.255"},
		{name: "IPv4 /30 with", spec: Spec{Prefix: mpp("10.0.0.4/30"), AllocateSubnetEnds: true}, wantSize: "4", wantFirst: "10.0.0.4", wantLast: "10.0.0.7"},
		{name: "IPv4 /31 either way", spec: Spec{Prefix: mpp("10.0.0.4/31"), AllocateSubnetEnds: true}, wantSize: "2", wantFirst: "10.0.0.4", wantLast: "10.0.0.5"},
		{name: "IPv4 /32 either way", spec: Spec{Prefix: mpp("10.0.0.9/32"), AllocateSubnetEnds: true}, wantSize: "1", wantFirst: "10.0.0.9", wantLast: "10.0.0.9"},
		{name: "IPv6 /120 without", spec: Spec{Prefix: mpp("fd00::/120")}, wantSize: "255", wantFirst: "fd00::1", wantLast: "fd00::ff"},
		{name: "IPv6 /120 with", spec: Spec{Prefix: mpp("fd00::/120"), AllocateSubnetEnds: true}, wantSize: "256", wantFirst: "fd00::", wantLast: "fd00::ff"},
		{name: "IPv6 /64 with", spec: Spec{Prefix: mpp("fd00::/64"), AllocateSubnetEnds: true}, wantSize: "18446744073709551616", wantFirst: "fd00::"},
		{name: "IPv4 /0 with", spec: Spec{Prefix: mpp("0.0.0.0/0"), AllocateSubnetEnds: true}, wantSize: "4294967296", wantFirst: "0.0.0.0"},
		{name: "IPv6 /0 with: the mapped block stays out", spec: Spec{Prefix: mpp("::/0"), AllocateSubnetEnds: true}, wantSize: "340282366920938463463374607427473244160" /* 2^128 - 2^32 */, wantFirst: "::"},
		{name: "with, ends excluded by hand", spec: Spec{
			Prefix: mpp("10.0.0.0/29"), AllocateSubnetEnds: true,
			Exclude: []netipx.IPRange{rng("10.0.0.0", "10.0.0.0")}, Reserved: []netip.Addr{mpa("10.0.0.7")},
		}, wantSize: "8", wantFirst: "10.0.0.1", wantLast: "10.0.0.6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.spec)
			if err != nil {
				t.Fatalf("New(%+v) error: %v", tt.spec, err)
			}
			if got := p.Stats().Size.String(); got != tt.wantSize {
				t.Errorf("Stats().Size = %s, want %s", got, tt.wantSize)
			}
			first, err := p.Allocate("owner-0")
			if err != nil || first != mpa(tt.wantFirst) {
				t.Fatalf("first Allocate = %v, %v; want %s", first, err, tt.wantFirst)
			}
			if tt.wantLast == "" {
				return
			}
			last := first
			for i := 1; ; i++ {
				a, err := p.Allocate(fmt.Sprintf("owner-%d", i))
				if errors.Is(err, ErrExhausted) {
					break
				}
				if err != nil {
					t.Fatalf("Allocate #%d error: %v", i, err)
				}
				last = a
			}
			if last != mpa(tt.wantLast) {
				t.Errorf("last address handed out = %s, want %s", last, tt.wantLast)
			}
		})
	}
}

// TestAllocateSubnetEndsValidate: Start and End may name a subnet end only
// with AllocateSubnetEnds.
func TestAllocateSubnetEndsValidate(t *testing.T) {
	tests := []struct {
		name    string
		spec    Spec
		wantErr bool
	}{
		{name: "network as start, without", spec: Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.0")}, wantErr: true},
		{name: "broadcast as end, without", spec: Spec{Prefix: mpp("10.0.0.0/24"), End: mpa("10.0.0.255")}, wantErr: true},
		{name: "anycast as start, without", spec: Spec{Prefix: mpp("fd00::/64"), Start: mpa("fd00::")}, wantErr: true},
		{name: "network as start, with", spec: Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.0"), AllocateSubnetEnds: true}},
		{name: "broadcast as end, with", spec: Spec{Prefix: mpp("10.0.0.0/24"), End: mpa("10.0.0.255"), AllocateSubnetEnds: true}},
		{name: "anycast as start, with", spec: Spec{Prefix: mpp("fd00::/64"), Start: mpa("fd00::"), AllocateSubnetEnds: true}},
		{name: "mapped start, with", spec: Spec{Prefix: mpp("::/64"), Start: mpa("::ffff:10.0.0.1"), AllocateSubnetEnds: true}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, want error: %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalidSpec) {
				t.Errorf("Validate() = %v, does not wrap ErrInvalidSpec", err)
			}
		})
	}
}

// TestAllocateSubnetEndsText: the flag survives SpecText and JSON, and is
// written only when set.
func TestAllocateSubnetEndsText(t *testing.T) {
	spec := Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("10.0.0.0"), AllocateSubnetEnds: true}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"cidr":"10.0.0.0/24","start":"10.0.0.0","allocateSubnetEnds":true}`; string(b) != want {
		t.Errorf("json.Marshal = %s, want %s", b, want)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(spec, back, cmpSpecs); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
	b, _ = json.Marshal(Spec{Prefix: mpp("10.0.0.0/24")})
	if want := `{"cidr":"10.0.0.0/24"}`; string(b) != want {
		t.Errorf("json.Marshal without the flag = %s, want %s", b, want)
	}
}
