package ipam

import (
	"net/netip"
	"slices"
	"testing"

	"go4.org/netipx"
)

// TestCheckerExcludedFirstUsable replays what rapid once found in
// TestCheckerMatchesCheck (the .fail file it wrote, since fixed and
// removed): in 10.0.0.0/29 with the first usable address excluded, a
// Checker walking the blocked span's edges in address order must call
// 10.0.0.1 excluded, as Pool.Check does.
func TestCheckerExcludedFirstUsable(t *testing.T) {
	p, err := New(Spec{Prefix: mpp("10.0.0.0/29"), Exclude: []netipx.IPRange{rng("10.0.0.1", "10.0.0.1")}})
	if err != nil {
		t.Fatal(err)
	}
	addrs := []netip.Addr{{}, mpa("::ffff:10.0.0.5"), mpa("2001:db8::5%eth0"), mpa("10.0.0.9"), mpa("2001:db8::1:0")}
	for _, sp := range p.l.blocked {
		for _, o := range []uint64{0, 1} {
			addrs = append(addrs, p.l.addr(sp.lo).Prev(), p.l.addr(sp.hi.Add64(o)))
		}
	}
	addrs = append(addrs, mpa("10.0.0.0"), mpa("10.0.0.1"), mpa("10.0.0.2"), mpa("10.0.0.7"))
	slices.SortFunc(addrs, netip.Addr.Compare)
	c := p.Checker()
	for _, a := range addrs {
		if got, want := checkText(c.Check(a)), checkText(p.Check(a)); got != want {
			t.Errorf("Checker.Check(%v) = %s, Pool.Check = %s", a, got, want)
		}
	}
	if got := checkText(c.Check(mpa("10.0.0.1"))); got == "<nil>" {
		t.Errorf("Checker.Check(10.0.0.1) = <nil>, want excluded")
	}
}
