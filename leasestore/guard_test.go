package leasestore

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/u128"
	"github.com/vmnetkit/vmnetkit/ipam"
	"go4.org/netipx"
	"pgregory.net/rapid"
)

// TestGuardMatchesCheck checks that guard.clear accepts exactly the
// addresses ipam.Pool.Check accepts, for random pools (Start, End,
// overlapping Exclude ranges, Reserved addresses) and addresses in
// ascending order, as a snapshot lists them, or in any order.
func TestGuardMatchesCheck(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		is4 := rapid.Bool().Draw(t, "is4")
		base := netip.MustParsePrefix("fd00::/120")
		if is4 {
			base = netip.MustParsePrefix("10.0.0.0/24")
		}
		at := func(label string) netip.Addr {
			a := base.Addr()
			for range rapid.IntRange(0, 255).Draw(t, label) {
				a = a.Next()
			}
			return a
		}
		spec := ipam.Spec{Prefix: base}
		if rapid.Bool().Draw(t, "start") {
			spec.Start = at("startAt")
		}
		if rapid.Bool().Draw(t, "end") {
			spec.End = at("endAt")
		}
		for range rapid.IntRange(0, 4).Draw(t, "excludes") {
			a, b := at("from"), at("to")
			if b.Less(a) {
				a, b = b, a
			}
			spec.Exclude = append(spec.Exclude, netipx.IPRangeFrom(a, b))
		}
		for range rapid.IntRange(0, 4).Draw(t, "reserved") {
			spec.Reserved = append(spec.Reserved, at("reservedAt"))
		}
		pool, err := ipam.New(spec)
		if err != nil {
			t.Skip("invalid spec:", err)
		}
		addrs := []netip.Addr{{}, netip.MustParseAddr("::ffff:10.0.0.5"), netip.MustParseAddr("fd00::5%eth0"), netip.MustParseAddr("10.0.1.0"), netip.MustParseAddr("fd00::1:0")}
		for range rapid.IntRange(0, 64).Draw(t, "addrs") {
			addrs = append(addrs, at("addr"))
		}
		if rapid.Bool().Draw(t, "sorted") {
			slices.SortFunc(addrs, netip.Addr.Compare)
		}
		g := newGuard(pool, spec)
		for _, a := range addrs {
			if got, want := g.clear(a, u128.FromAs16(a)), pool.Check(a) == nil; got != want {
				t.Fatalf("clear(%v) = %v, Check(%v) = %v", a, got, a, pool.Check(a))
			}
		}
	})
}
