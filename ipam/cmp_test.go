package ipam

import (
	"net/netip"

	"github.com/google/go-cmp/cmp"
	"go4.org/netipx"
)

// cmpAddrs compares netip and netipx values by value (they have unexported fields).
var cmpAddrs = cmp.Options{
	cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
	cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }),
	cmp.Comparer(func(a, b netipx.IPRange) bool { return a == b }),
	cmp.Comparer(func(a, b error) bool { return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error()) }),
}

func diffSnap(want, got Snapshot) string { return cmp.Diff(want, got, cmpAddrs) }

func cmpProblems(want, got []Problem) string { return cmp.Diff(want, got, cmpAddrs) }
