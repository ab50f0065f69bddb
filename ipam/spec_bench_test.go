package ipam

// Benchmarks of what a Spec costs before any allocation: parsing the
// declarative forms and building a pool (issue 26: specs paid for error
// text they never printed, and a scattered exclude in ::/0 retained ten
// times what it does in a /8).

import (
	"net/netip"
	"testing"

	"github.com/vmnetkit/vmnetkit/internal/measure"
	"go4.org/netipx"
)

// bigAddressList returns an AddressList of n entries in 10.0.0.0/8, one
// address, a from-to range and a /31 in turn, each with a gap before the
// next, so that its Spec has about n Exclude ranges, and n/100 excluded
// addresses.
func bigAddressList(n int) AddressList {
	l := AddressList{Prefix: 8, Gateway: "10.0.0.1"}
	addr := func(o uint32) string {
		return netip.AddrFrom4([4]byte{10, byte(o >> 16), byte(o >> 8), byte(o)}).String()
	}
	for i := range n {
		o := uint32(8*i + 2)
		switch i % 3 {
		case 0:
			l.Addresses = append(l.Addresses, addr(o))
		case 1:
			l.Addresses = append(l.Addresses, addr(o)+"-"+addr(o+2))
		default:
			l.Addresses = append(l.Addresses, addr(o)+"/31")
		}
		if i%100 == 0 {
			l.ExcludedAddresses = append(l.ExcludedAddresses, addr(o))
		}
	}
	return l
}

// BenchmarkAddressListParse parses an AddressList of 100,000 entries
// (bigAddressList): its time and allocation are what a controller pays on
// every reconcile of a large pool.
func BenchmarkAddressListParse(b *testing.B) {
	l := bigAddressList(100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := l.Parse(); err != nil {
			b.Fatal(err)
		}
	}
}

// scatteredExcludes returns a Spec of prefix with n single-address
// Exclude ranges at pseudo-random usable addresses (scatteredAddrs).
func scatteredExcludes(prefix string, n int) Spec {
	s := Spec{Prefix: netip.MustParsePrefix(prefix)}
	for _, a := range scatteredAddrs(prefix, n) {
		s.Exclude = append(s.Exclude, netipx.IPRangeFrom(a, a))
	}
	return s
}

// retainedPerExclude returns the heap a pool of spec retains (New, the
// pool's copy of the Spec included) per Exclude range.
func retainedPerExclude(tb testing.TB, spec Spec) float64 {
	bytes := measure.Retained(func() any {
		p, err := New(spec)
		if err != nil {
			tb.Fatal(err)
		}
		return p
	})
	return float64(bytes) / float64(len(spec.Exclude))
}

var scatteredExcludePrefixes = []struct{ name, prefix string }{
	{"v4-8", "10.0.0.0/8"}, {"v6-64", "2001:db8::/64"}, {"v6-0", "::/0"},
}

// BenchmarkNewScatteredExcludes builds a pool with 100,000 single-address
// excludes scattered over a /8, a /64 and ::/0, and reports the heap each
// retains per exclude, in one run.
func BenchmarkNewScatteredExcludes(b *testing.B) {
	const n = 100_000
	for _, c := range scatteredExcludePrefixes {
		spec := scatteredExcludes(c.prefix, n)
		b.Run(c.name, func(b *testing.B) {
			retained := retainedPerExclude(b, spec)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := New(spec); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(retained, "retained-B/exclude")
		})
	}
}

// TestValidInputBuildsNoErrorText: parsing and validating a Spec of 10,000
// exclusions allocates a few dozen times, not per exclusion (compile built
// two error labels per Exclude range, whether or not it was wrong; issue
// 26). New, FormatAllocated, RestoreAllocated and leasestore.Build start
// with the same compile.
func TestValidInputBuildsNoErrorText(t *testing.T) {
	const n = 10_000
	list := bigAddressList(n)
	spec, err := list.Parse()
	if err != nil {
		t.Fatal(err)
	}
	text := spec.Text()
	if len(spec.Exclude) < n*9/10 {
		t.Fatalf("%d exclusions, want about %d", len(spec.Exclude), n)
	}
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"Spec.Validate", spec.Validate},
		{"SpecText.Parse", func() error { _, err := text.Parse(); return err }},
		{"AddressList.Parse", func() error { _, err := list.Parse(); return err }},
	} {
		var err error
		if got := measure.Mallocs(1, func() { err = c.f() }); got > 100 {
			t.Errorf("%s of %d exclusions: %d allocations, want at most 100", c.name, len(spec.Exclude), got)
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// BenchmarkManyExcludes: what the other entry points that compile a Spec
// (New, FormatAllocated, RestoreAllocated) pay for one of 100,000 Exclude
// ranges (bigAddressList's), with no allocation in it.
func BenchmarkManyExcludes(b *testing.B) {
	spec, err := bigAddressList(100_000).Parse()
	if err != nil {
		b.Fatal(err)
	}
	snap := Snapshot{Spec: spec}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"New", func() { _, _ = New(spec) }},
		{"FormatAllocated", func() { FormatAllocated(snap) }},
		{"RestoreAllocated", func() { _, _, _ = RestoreAllocated(spec, nil) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				c.f()
			}
		})
	}
}
