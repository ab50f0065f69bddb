package controller_test

import (
	"encoding/json"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// etcdRequestLimit is etcd's default --max-request-bytes (1.5 MiB), which
// envtest does not change: the size a pool's status runs into. It only
// aims the first write of searchCeiling; a wrong value costs writes, not
// a wrong result.
const etcdRequestLimit = 3 << 19

// guessCeiling estimates the largest n for which the object fits etcd's
// limit, from obj, the object as read back holding n0 entries, and
// size(n), the length of its status map's JSON with n entries (computed,
// not written): the rest of the object costs the same at any n. Its
// managedFields are left out: the API server listed each key of a
// 24,000-entry IPv4 map in them (19 bytes a key), and none at the
// ceiling.
func guessCeiling(t testing.TB, obj client.Object, n0 int, size func(n int) int) int {
	t.Helper()
	obj = obj.DeepCopyObject().(client.Object)
	obj.SetManagedFields(nil)
	rest := jsonSize(t, obj) - size(n0)
	fits := func(n int) bool { return rest+size(n) <= etcdRequestLimit }
	if !fits(n0) {
		return n0
	}
	lo, hi := n0, 2*n0+1
	for fits(hi) {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// jsonSize is the length of v's JSON.
func jsonSize(t testing.TB, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// searchCeiling returns ok < bad with bad-ok <= within, write(ok) == nil
// and write(bad) refused (with its error), for a write that succeeds up to
// some size and fails above it. It writes guess first, then steps away
// from it by within, doubling the step, until it holds one size of each
// kind, and bisects between them. From guessCeiling's guess that took 2
// writes of 1.5 MB to within 250 and 4 to within 2, where bisecting took 8
// and 14, each costing the API server seconds of CPU. The object is left
// holding whatever was written last.
func searchCeiling(t testing.TB, write func(n int) error, guess, within int) (ok, bad int, refused error) {
	t.Helper()
	const most = 1 << 16 // the bisections' old upper bound: 65,536 entries are far over 1.5 MB
	writes := 0
	try := func(n int) {
		writes++
		if err := write(n); err != nil {
			bad, refused = n, err
		} else {
			ok = n
		}
	}
	ok, bad = -1, -1
	try(guess)
	for step := within; ok < 0 || bad < 0; step *= 2 {
		switch {
		case ok < 0 && bad == 0:
			t.Fatalf("searchCeiling: a write of 0 entries is refused: %v", refused)
		case ok < 0:
			try(max(bad-step, 0))
		case ok+step > most:
			t.Fatalf("searchCeiling: no write refused up to %d entries", ok)
		default:
			try(ok + step)
		}
	}
	for bad-ok > within {
		try((ok + bad) / 2)
	}
	t.Logf("searchCeiling: %d writes from a guess of %d: %d written, %d refused", writes, guess, ok, bad)
	return ok, bad, refused
}
