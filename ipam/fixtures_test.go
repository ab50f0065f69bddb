package ipam

// The specs, values, owners and comparers that the tests of this package
// share; the model is in model_test.go and the rapid generators in
// gen_test.go. Each test file keeps only what it alone uses.

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go4.org/netipx"
)

var (
	mpa = netip.MustParseAddr
	mpp = netip.MustParsePrefix
)

func rng(from, to string) netipx.IPRange { return netipx.IPRangeFrom(mpa(from), mpa(to)) }

// smallSpec: 10.0.0.1-10.0.0.6 usable; .3-.4 excluded, .1 reserved: free .2 .5 .6.
func smallSpec() Spec {
	return Spec{
		Prefix:   mpp("10.0.0.0/29"),
		Exclude:  []netipx.IPRange{rng("10.0.0.3", "10.0.0.4")},
		Reserved: []netip.Addr{mpa("10.0.0.1")},
	}
}

func mustNew(t *testing.T, spec Spec) *Pool {
	t.Helper()
	p, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mac returns the i-th 17-byte MAC-style owner, e.g. "52:54:00:00:00:2a".
func mac(i int) string {
	const hex = "0123456789abcdef"
	b := []byte("52:54:00:00:00:00")
	for k := range 4 {
		v := byte(i >> (8 * (3 - k)))
		b[6+3*k], b[7+3*k] = hex[v>>4], hex[v&15]
	}
	return string(b)
}

func macs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = mac(i)
	}
	return out
}

// cmpSpecs compares Specs by value, an empty list equal to a nil one.
var cmpSpecs = cmp.Options{cmpAddrs, cmpopts.EquateEmpty()}

// cmpAddrs compares netip and netipx values by value (they have unexported fields).
var cmpAddrs = cmp.Options{
	cmpopts.EquateComparable(netip.Addr{}, netip.Prefix{}, netipx.IPRange{}),
	cmp.Comparer(func(a, b error) bool { return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error()) }),
}

func diffSnap(want, got Snapshot) string { return cmp.Diff(want, got, cmpAddrs) }

func cmpProblems(want, got []Problem) string { return cmp.Diff(want, got, cmpAddrs) }
