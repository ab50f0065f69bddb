package controller_test

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// claimSet is a number of claims split between an IPv4 VMNetIPPool (a /18)
// and an IPv6 GlobalVMNetIPPool (a range of 100,000 in a /64).
type claimSet struct {
	ns         string
	globalPool string
	n          int
}

func newClaimSet(t testing.TB, c client.Client, ns string, n int) claimSet {
	t.Helper()
	s := claimSet{ns: ns, globalPool: ns + "-v6", n: n}
	create(t, c,
		newPool(ns, "v4", v1alpha1.PoolSpec{Addresses: []string{"10.64.0.0/18"}, Prefix: 18, Gateway: "10.64.0.1"}),
		&v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: s.globalPool}, Spec: v1alpha1.PoolSpec{
			Addresses: []string{"fd00:64::-fd00:64::1:869f"}, Prefix: 64, Gateway: "fd00:64::1",
		}})
	return s
}

// claim returns the i-th claim: even ones on the IPv4 pool, odd ones on the
// IPv6 pool.
func (s claimSet) claim(i int) *ipamv1.IPAddressClaim {
	ref := poolRef(v1alpha1.PoolKind, "v4")
	if i%2 == 1 {
		ref = poolRef(v1alpha1.GlobalPoolKind, s.globalPool)
	}
	return newClaim(s.ns, fmt.Sprintf("m-%04d", i), ref)
}

// createAll creates claims [from, to) with 16 writers.
func (s claimSet) createAll(t testing.TB, c client.Client, from, to int) {
	t.Helper()
	if err := kubetest.InParallel(to-from, 16, func(i int) error {
		return c.Create(context.Background(), s.claim(from+i))
	}); err != nil {
		t.Fatal(err)
	}
}

// settled returns how many claims have an addressRef.
func (s claimSet) settled(t testing.TB, c client.Client) int {
	t.Helper()
	var list ipamv1.IPAddressClaimList
	if err := c.List(context.Background(), &list, client.InNamespace(s.ns)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, cl := range list.Items {
		if cl.Status.AddressRef.Name != "" {
			n++
		}
	}
	return n
}

// waitSettled waits until every claim has an addressRef, then checks them
// (check).
func (s claimSet) waitSettled(t testing.TB, c client.Client, timeout time.Duration) {
	t.Helper()
	kubetest.Eventually(t, timeout, fmt.Sprintf("all %d claims settled", s.n), func() (bool, string) {
		n := s.settled(t, c)
		return n == s.n, fmt.Sprintf("%d settled", n)
	})
	s.check(t, c)
}

// check checks that no address is held twice, that each claim's IPAddress
// is its own, of its pool's family, and that each pool counts them.
func (s claimSet) check(t testing.TB, c client.Client) {
	t.Helper()
	addrs := checkUnique(t, c, s.ns)
	if len(addrs) != s.n {
		t.Errorf("%d IPAddresses, want %d", len(addrs), s.n)
	}
	var list ipamv1.IPAddressClaimList
	if err := c.List(context.Background(), &list, client.InNamespace(s.ns)); err != nil {
		t.Fatal(err)
	}
	for _, cl := range list.Items {
		a, ok := addrs[cl.Status.AddressRef.Name]
		switch {
		case !ok || cl.Status.AddressRef.Name != cl.Name:
			t.Fatalf("claim %s: addressRef %q", cl.Name, cl.Status.AddressRef.Name)
		case a.Is4() != (cl.Spec.PoolRef.Kind == v1alpha1.PoolKind):
			t.Fatalf("claim %s of %s got %s", cl.Name, cl.Spec.PoolRef.Kind, a)
		case a == netip.MustParseAddr("10.64.0.1") || a == netip.MustParseAddr("fd00:64::1"):
			t.Fatalf("claim %s got the gateway %s", cl.Name, a)
		}
	}
	v4 := &v1alpha1.VMNetIPPool{ObjectMeta: metaOf(s.ns, "v4")}
	v6 := &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: s.globalPool}}
	want4 := v1alpha1.PoolStatusAddresses{Total: 16381, Used: (s.n + 1) / 2, Free: 16381 - (s.n+1)/2}
	want6 := v1alpha1.PoolStatusAddresses{Total: 99998, Used: s.n / 2, Free: 99998 - s.n/2} // 100,000 less anycast and gateway
	kubetest.Eventually(t, 30*time.Second, "pools count every claim", func() (bool, string) {
		get(t, c, v4)
		get(t, c, v6)
		a4, a6 := v4.Status.Addresses, v6.Status.Addresses
		return a4 != nil && a6 != nil && *a4 == want4 && *a6 == want6,
			fmt.Sprintf("v4 %s (want %+v), v6 %s (want %+v)", statusText(v4.Status), want4, statusText(v6.Status), want6)
	})
}

// TestConcurrentClaims: 2,000 claims created at once over an IPv4 and an
// IPv6 pool settle with no address handed out twice.
func TestConcurrentClaims(t *testing.T) {
	const n = 2000
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ns := kubetest.CreateNamespace(t, c, "concurrent")
	s := newClaimSet(t, c, ns, n)
	startManager(t, cfg, ns, "epoch-concurrent", nil)
	calls := kubetest.ReadAPICalls(t, cfg)
	start := time.Now()
	s.createAll(t, c, 0, n)
	created := time.Since(start)
	s.waitSettled(t, c, 10*time.Minute)
	// Each pool's counts are written at most once a second (countsDelay)
	// whatever the number of claims, plus the writes of CacheReady.
	after := kubetest.ReadAPICalls(t, cfg)
	writes := after["PUT vmnetippools/status"] - calls["PUT vmnetippools/status"] +
		after["PUT globalvmnetippools/status"] - calls["PUT globalvmnetippools/status"]
	if limit := 2 * (time.Since(start).Seconds() + 5); writes > limit {
		t.Errorf("%.0f pool status writes for %d claims in %v, want at most %.0f (one a second a pool)", writes, n, time.Since(start).Round(time.Second), limit)
	}
	t.Logf("%d claims: created in %v, all settled and checked %v after the first create; %.0f pool status writes",
		n, created.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), writes)
}

// TestRestartMidway: the manager stops while claims are being served; a new
// process (another epoch) rebuilds each pool from the IPAddresses, takes
// over CacheReady, and settles the rest with no address handed out twice.
func TestRestartMidway(t *testing.T) {
	const n = 400
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ns := kubetest.CreateNamespace(t, c, "restart")
	s := newClaimSet(t, c, ns, n)
	m := startManager(t, cfg, ns, "epoch-restart-1", nil)
	s.createAll(t, c, 0, n/2)
	kubetest.Eventually(t, 2*time.Minute, "some claims settled", func() (bool, string) {
		k := s.settled(t, c)
		return k >= n/8, fmt.Sprintf("%d settled", k)
	})
	m.stop()
	before := s.settled(t, c)
	s.createAll(t, c, n/2, n)
	startManager(t, cfg, ns, "epoch-restart-2", nil)
	s.waitSettled(t, c, 5*time.Minute)
	if before >= n {
		t.Errorf("all %d claims settled before the restart: nothing was left for the new process", before)
	}
	v4 := &v1alpha1.VMNetIPPool{ObjectMeta: metaOf(ns, "v4")}
	get(t, c, v4)
	if v4.Status.CacheEpoch != "epoch-restart-2" || !hasCondition(v4.Status.Conditions, "CacheReady", metav1.ConditionTrue) {
		t.Errorf("after the restart, pool status %s, want CacheReady True of epoch-restart-2", statusText(v4.Status))
	}
	t.Logf("%d of %d claims settled before the restart", before, n)
}

// TestSplitBrain: two managers serve the same claims at once, each with
// its own cache and epoch (no leader election); no address is handed out
// twice. It fails when the two never collided (no address found locked
// by the other manager for another claim): then the guard it exists for
// was not exercised.
func TestSplitBrain(t *testing.T) {
	const n = 400
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ns := kubetest.CreateNamespace(t, c, "splitbrain")
	s := newClaimSet(t, c, ns, n)
	a := startManager(t, cfg, ns, "epoch-split-a", nil)
	b := startManager(t, cfg, ns, "epoch-split-b", nil)
	start := time.Now()
	s.createAll(t, c, 0, n)
	s.waitSettled(t, c, 5*time.Minute)
	t.Logf("%d claims settled in %v; addresses found locked for another claim: %d by a, %d by b",
		n, time.Since(start).Round(time.Millisecond), a.losses.Load(), b.losses.Load())
	if a.losses.Load()+b.losses.Load() == 0 {
		t.Errorf("the two managers never collided on an address: the test did not exercise the split-brain guard")
	}
}
