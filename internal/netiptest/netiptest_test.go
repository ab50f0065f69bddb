package netiptest

import (
	"net/netip"
	"testing"

	"go4.org/netipx"

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

func TestRangeSize(t *testing.T) {
	tests := []struct {
		name string
		r    netipx.IPRange
		want string
	}{
		{"invalid", netipx.IPRange{}, "0"},
		{"one address", netipx.IPRangeFrom(netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.1")), "1"},
		{"a /24", netipx.RangeOfPrefix(netip.MustParsePrefix("10.0.0.0/24")), "256"},
		{"a /64", netipx.RangeOfPrefix(netip.MustParsePrefix("fd00::/64")), "18446744073709551616"},
		{"all of ::/0", netipx.RangeOfPrefix(netip.MustParsePrefix("::/0")), "340282366920938463463374607431768211456"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RangeSize(tt.r).String(); got != tt.want {
				t.Errorf("RangeSize(%v) = %s, want %s", tt.r, got, tt.want)
			}
		})
	}
}

func TestSplitList(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"one", "a", []string{"a"}},
		{"two", "a,b", []string{"a", "b"}},
		{"empty items kept", ",a,", []string{"", "a", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, SplitList(tt.in)); diff != "" {
				t.Errorf("SplitList(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
