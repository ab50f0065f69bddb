package ipam

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go4.org/netipx"
)

// TestSpecTextExcludesPrefixHoldingMappedBlock is issue 26's case:
// SpecText{CIDR: "::/64", Exclude: ["::/80"]} was refused with the advice
// "write 255.255.255.255" (::/80 ends in the IPv4-mapped block), while
// ParseRange and AddressList accept that exclusion.
func TestSpecTextExcludesPrefixHoldingMappedBlock(t *testing.T) {
	spec, err := SpecText{CIDR: "::/64", Exclude: []string{"::/80"}}.Parse()
	if err != nil {
		t.Fatalf("Parse() error: %v", err)
	}
	p, err := New(spec)
	if err != nil {
		t.Fatalf("New() error: %v", err)
	}
	// ::1 to ::ffff:ffff:ffff less the 2^32 mapped addresses, which are
	// unusable, not excluded.
	if got, want := p.Stats().Excluded.String(), fmt.Sprint(uint64(1)<<48-1-1<<32); got != want {
		t.Errorf("Excluded = %s, want %s", got, want)
	}
	if a, err := p.Allocate("vm-a"); err != nil || a != mpa("::1:0:0:0") {
		t.Errorf("Allocate = %v, %v; want ::1:0:0:0", a, err)
	}
}

// TestRangeTextOneRule: SpecText's Exclude, AddressList's Addresses and
// ExcludedAddresses accept exactly what ParseRange accepts, for ranges
// inside the pool's prefix; the IPv4-mapped block may be held by a prefix
// that starts below it, never named.
func TestRangeTextOneRule(t *testing.T) {
	tests := []struct {
		cidr string
		text string
		ok   bool
	}{
		{"::/64", "::/80", true},
		{"::/64", "::/96", true},
		{"::/64", "::/81", true},
		{"::/64", "::8000:0:0/81", true},
		{"::/64", "::fffe:0:0/95", true},
		{"::/64", "::/64", true},
		{"::/64", "::1-::fffe:ffff:ffff", true},
		{"::/64", "::1:0:0:0-::2:0:0:0", true},
		{"::/64", "::ffff:0:0/96", false},
		{"::/64", "::ffff:0:0/97", false},
		{"::/64", "::1-::ffff:0.0.0.1", false},
		{"::/64", "::ffff:1.2.3.4", false},
		{"::/64", "::ffff:1.2.3.4-::1:0:0:0", false},
		{"::/64", "::5%eth0", false},
		{"::/64", "::5/64", false},
		{"::/0", "::/0", true},
		{"::/0", "::/1", true},
		{"::/0", "ffff::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", true},
		{"10.0.0.0/16", "10.0.0.0/24", true},
		{"10.0.0.0/16", "10.0.0.5", true},
		{"10.0.0.0/16", "10.0.0.5-10.0.0.9", true},
		{"10.0.0.0/16", "::ffff:10.0.0.5", false},
		{"10.0.0.0/16", "10.0.0.5/24", false},
		{"10.0.0.0/16", " 10.0.0.5", false},
		{"10.0.0.0/16", "10.0.0.9-10.0.0.5", false},
		{"10.0.0.0/16", "010.0.0.5", false},
	}
	for _, tt := range tests {
		t.Run(tt.cidr+" "+tt.text, func(t *testing.T) {
			prefix := mpp(tt.cidr)
			_, rangeErr := ParseRange(tt.text)
			_, specErr := SpecText{CIDR: tt.cidr, Exclude: []string{tt.text}}.Parse()
			_, listErr := AddressList{Addresses: []string{FormatRange(netipx.RangeOfPrefix(prefix)), tt.text}, Prefix: prefix.Bits()}.Parse()
			_, exclErr := AddressList{Addresses: []string{FormatRange(netipx.RangeOfPrefix(prefix))}, Prefix: prefix.Bits(), ExcludedAddresses: []string{tt.text}}.Parse()
			for _, c := range []struct {
				what string
				err  error
			}{{"ParseRange", rangeErr}, {"SpecText exclude", specErr}, {"AddressList addresses", listErr}, {"AddressList excludedAddresses", exclErr}} {
				if (c.err == nil) != tt.ok {
					t.Errorf("%s: error %v, want ok %t", c.what, c.err, tt.ok)
				}
				if c.err != nil && !errors.Is(c.err, ErrInvalidAddr) {
					t.Errorf("%s: error %v does not wrap ErrInvalidAddr", c.what, c.err)
				}
				// The advice fits the pool: no IPv4 address to write for
				// an IPv6 pool.
				if c.what != "ParseRange" && c.err != nil && !prefix.Addr().Is4() && strings.Contains(c.err.Error(), "write ") {
					t.Errorf("%s: error %v advises an IPv4 address for an IPv6 pool", c.what, c.err)
				}
			}
		})
	}
}

// TestMappedAdviceFitsThePool: an IPv4-mapped address in an IPv4 pool
// gets the IPv4 address to write; in an IPv6 pool, that the pool never
// hands out the mapped block, wherever the address is met.
func TestMappedAdviceFitsThePool(t *testing.T) {
	v4, _ := New(Spec{Prefix: mpp("10.0.0.0/24")})
	v6, _ := New(Spec{Prefix: mpp("::/64")})
	v6wide, _ := New(Spec{Prefix: mpp("fd00::/64")})
	firstProblem := func(spec Spec, m map[string]string) error {
		_, ps := ParseAllocated(spec, m)
		if len(ps) == 0 {
			return nil
		}
		return ps[0]
	}
	specErr := func(t SpecText) error { _, err := t.Parse(); return err }
	listErr := func(l AddressList) error { _, err := l.Parse(); return err }
	const v6advice = "an IPv6 pool never hands out ::ffff:0:0/96"
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"IPv4 SpecText reserved", specErr(SpecText{CIDR: "10.0.0.0/24", Reserved: []string{"::ffff:10.0.0.5"}}), "write 10.0.0.5"},
		{"IPv6 SpecText reserved", specErr(SpecText{CIDR: "::/64", Reserved: []string{"::ffff:10.0.0.5"}}), v6advice},
		{"IPv6 SpecText start", specErr(SpecText{CIDR: "::/64", Start: "::ffff:10.0.0.5"}), v6advice},
		{"IPv6 SpecText exclude prefix", specErr(SpecText{CIDR: "::/64", Exclude: []string{"::ffff:0:0/96"}}), v6advice},
		{"IPv6 SpecText exclude to", specErr(SpecText{CIDR: "::/64", Exclude: []string{"::1-::ffff:0.0.0.1"}}), v6advice},
		{"IPv6 Spec start", Spec{Prefix: mpp("::/64"), Start: mpa("::ffff:10.0.0.5")}.Validate(), v6advice},
		{"IPv6 Spec exclude ending in the block", Spec{Prefix: mpp("::/64"), Exclude: []netipx.IPRange{rng("::1", "::ffff:0.0.0.1")}}.Validate(), "end the range at ::fffe:ffff:ffff"},
		{"IPv6 Spec exclude starting in the block", Spec{Prefix: mpp("::/64"), Exclude: []netipx.IPRange{rng("::ffff:0.0.0.1", "::1:0:0:0")}}.Validate(), "start the range at ::1:0:0:0"},
		{"IPv4 Spec start", Spec{Prefix: mpp("10.0.0.0/24"), Start: mpa("::ffff:10.0.0.5")}.Validate(), "write 10.0.0.5"},
		{"IPv4 pool Check", v4.Check(mpa("::ffff:10.0.0.5")), "write 10.0.0.5"},
		{"IPv6 pool Check inside", v6.Check(mpa("::ffff:10.0.0.5")), v6advice},
		{"IPv6 pool Check outside", v6wide.Check(mpa("::ffff:10.0.0.5")), v6advice},
		{"IPv4 status map", firstProblem(Spec{Prefix: mpp("10.0.0.0/24")}, map[string]string{"::ffff:10.0.0.5": "vm"}), "write 10.0.0.5"},
		{"IPv6 status map", firstProblem(Spec{Prefix: mpp("::/64")}, map[string]string{"::ffff:10.0.0.5": "vm"}), v6advice},
		{"IPv6 AddressList", listErr(AddressList{Addresses: []string{"fd00::1", "::ffff:10.0.0.1"}, Prefix: 64}), v6advice},
		{"IPv6 AddressList gateway", listErr(AddressList{Addresses: []string{"fd00::1"}, Prefix: 64, Gateway: "::ffff:10.0.0.1"}), v6advice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(tt.err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", tt.err, tt.want)
			}
		})
	}
}
