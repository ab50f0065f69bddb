package ipam

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"
	"pgregory.net/rapid"
)

// checkText is err's text, or "<nil>".
func checkText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestCheckerMatchesCheck checks that a Checker returns exactly what
// Pool.Check returns, error text included, for random pools (Start, End,
// overlapping Exclude ranges, Reserved addresses, ranges that span the
// IPv4-mapped block) and addresses in ascending order, as a snapshot lists
// them, or in any order, with addresses no pool holds among them.
func TestCheckerMatchesCheck(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spec := genSpec(t)
		p, err := New(spec)
		if err != nil {
			t.Fatalf("genSpec drew an invalid spec: %v", err)
		}
		bits := spec.Prefix.Addr().BitLen() - spec.Prefix.Bits()
		addrs := []netip.Addr{{}, mpa("::ffff:10.0.0.5"), mpa("2001:db8::5%eth0"), mpa("10.0.0.9"), mpa("2001:db8::1:0")}
		for _, sp := range p.l.blocked { // the edges of every blocked span
			for _, o := range []uint64{0, 1} {
				addrs = append(addrs, p.l.addr(sp.lo).Prev(), p.l.addr(sp.hi.Add64(o)))
			}
		}
		addrs = append(addrs, spec.Reserved...)
		for range rapid.IntRange(0, 64).Draw(t, "addrs") {
			addrs = append(addrs, addrAt(spec.Prefix, genOffset(t, "addr", bits)))
		}
		if rapid.Bool().Draw(t, "sorted") {
			slices.SortFunc(addrs, netip.Addr.Compare)
		} else {
			addrs = rapid.Permutation(addrs).Draw(t, "order")
		}
		c := p.Checker()
		for _, a := range addrs {
			if got, want := checkText(c.Check(a)), checkText(p.Check(a)); got != want {
				t.Fatalf("Checker.Check(%v) = %s, Pool.Check = %s", a, got, want)
			}
		}
	})
}

// TestCheckerTable walks the pool of TestCheck in address order and back.
func TestCheckerTable(t *testing.T) {
	p, err := New(Spec{
		Prefix:   mpp("10.0.0.0/24"),
		Start:    mpa("10.0.0.10"),
		End:      mpa("10.0.0.100"),
		Exclude:  []netipx.IPRange{rng("10.0.0.2", "10.0.0.12"), rng("10.0.0.50", "10.0.0.59")},
		Reserved: []netip.Addr{mpa("10.0.0.55"), mpa("10.0.0.20"), mpa("10.0.0.200")},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		addrs []string
		want  []string
	}{
		{
			name:  "ascending",
			addrs: []string{"10.0.0.9", "10.0.0.12", "10.0.0.13", "10.0.0.20", "10.0.0.21", "10.0.0.55", "10.0.0.60", "10.0.0.101"},
			want: []string{
				`ipam: check "10.0.0.9" in 10.0.0.0/24: outside 10.0.0.10-10.0.0.100: address out of range`,
				`ipam: check "10.0.0.12" in 10.0.0.0/24: address excluded`,
				"<nil>",
				`ipam: check "10.0.0.20" in 10.0.0.0/24: address reserved`,
				"<nil>",
				`ipam: check "10.0.0.55" in 10.0.0.0/24: address reserved`,
				"<nil>",
				`ipam: check "10.0.0.101" in 10.0.0.0/24: outside 10.0.0.10-10.0.0.100: address out of range`,
			},
		},
		{
			name:  "descending",
			addrs: []string{"10.0.0.60", "10.0.0.59", "10.0.0.21", "10.0.0.20", "10.0.0.13", "10.0.0.12"},
			want: []string{
				"<nil>",
				`ipam: check "10.0.0.59" in 10.0.0.0/24: address excluded`,
				"<nil>",
				`ipam: check "10.0.0.20" in 10.0.0.0/24: address reserved`,
				"<nil>",
				`ipam: check "10.0.0.12" in 10.0.0.0/24: address excluded`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := p.Checker()
			var got []string
			for _, a := range tt.addrs {
				got = append(got, checkText(c.Check(mpa(a))))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckerZero: the zero Checker and that of a nil Pool answer as the
// zero Pool does.
func TestCheckerZero(t *testing.T) {
	var nilPool *Pool
	for name, c := range map[string]Checker{"zero": {}, "nil pool": nilPool.Checker(), "zero pool": new(Pool).Checker()} {
		if got, want := checkText(c.Check(mpa("10.0.0.1"))), checkText(new(Pool).Check(mpa("10.0.0.1"))); got != want {
			t.Errorf("%s: Check = %s, want %s", name, got, want)
		}
	}
}

// TestCheckerAllocs: a Checker allocates only to build an error.
func TestCheckerAllocs(t *testing.T) {
	p, err := New(Spec{Prefix: mpp("10.0.0.0/24"), Exclude: []netipx.IPRange{rng("10.0.0.50", "10.0.0.59")}})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Checker()
	addrs := []netip.Addr{mpa("10.0.0.1"), mpa("10.0.0.49"), mpa("10.0.0.60"), mpa("10.0.0.2")}
	if n := testing.AllocsPerRun(100, func() {
		for _, a := range addrs {
			if err := c.Check(a); err != nil {
				t.Fatal(err)
			}
		}
	}); n != 0 {
		t.Errorf("Check of allocatable addresses: %v allocations, want 0", n)
	}
}

// TestCheckerIgnoresAllocations: as Pool.Check, a Checker answers for the
// Spec, whatever the pool holds, before and after allocations.
func TestCheckerIgnoresAllocations(t *testing.T) {
	p, err := New(Spec{Prefix: mpp("10.0.0.0/29")})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Checker()
	a := mpa("10.0.0.1")
	if err := c.Check(a); err != nil {
		t.Fatalf("Check(%s) before Allocate = %v", a, err)
	}
	if got, err := p.Allocate("vm-1"); err != nil || got != a {
		t.Fatalf("Allocate = %s, %v; want %s", got, err, a)
	}
	for _, b := range []netip.Addr{a, mpa("10.0.0.2")} {
		if err := c.Check(b); err != nil {
			t.Errorf("Check(%s) after Allocate = %v, want nil", b, err)
		}
	}
}
