package netiptest

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestAddrs(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []netip.Addr
	}{
		{"none", nil, []netip.Addr{}},
		{"both families", []string{"10.0.0.1", "fe80::1%eth0"}, []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("fe80::1%eth0")}},
		{"empty is the zero Addr", []string{"", "10.0.0.1"}, []netip.Addr{{}, netip.MustParseAddr("10.0.0.1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Addrs(tt.in...), cmpopts.EquateComparable(netip.Addr{})); diff != "" {
				t.Errorf("Addrs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrefixes(t *testing.T) {
	got := Prefixes("10.0.0.0/8", "2001:db8::/32")
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32")}
	if diff := cmp.Diff(want, got, cmpopts.EquateComparable(netip.Prefix{})); diff != "" {
		t.Errorf("Prefixes (-want +got):\n%s", diff)
	}
}

func TestPanicsOnGarbage(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"Addrs", func() { Addrs("10.0.0.256") }},
		{"Prefixes", func() { Prefixes("10.0.0.1") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", tt.name)
				}
			}()
			tt.f()
		})
	}
}
