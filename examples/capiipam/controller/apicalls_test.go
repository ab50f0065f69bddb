package controller_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestAPICallsPerClaim counts, from the API server's own metrics, the
// requests a burst of claims costs the provider, by verb and resource, and
// checks that a claim costs at most three requests besides the pools' (the
// lock, the IPAddress, the claim's status: no claim finalizer, no read)
// and the pools' reads and count writes at most 0.25, amortised: four in
// all at most, the bound issue 24 sets.
func TestAPICallsPerClaim(t *testing.T) {
	const n = 200
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "apicalls")
	s := capiipamtest.NewClaimSet(t, c, ns, n)
	m := capiipamtest.StartManager(t, cfg, ns, "epoch-apicalls", nil)
	capiipamtest.WaitCacheReady(t, c, &v1alpha1.VMNetIPPool{ObjectMeta: capiipamtest.MetaOf(ns, "v4")}, m.Epoch)
	capiipamtest.WaitCacheReady(t, c, &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: s.GlobalPool}}, m.Epoch)
	settled := capiipamtest.WatchSettled(t, cfg, ns, n)
	lists := capiipamtest.WatchLists.Load()
	before := kubetest.ReadAPICalls(t, cfg)
	s.CreateAll(t, c, 0, n)
	select {
	case <-settled:
	case <-time.After(5 * time.Minute):
		t.Fatalf("%d of %d claims settled after 5m", s.Settled(t, c), n)
	}
	// The pools' counts follow within countsDelay (a second) of the last
	// IPAddress event: wait for them without asking the API server.
	time.Sleep(2 * time.Second)
	after := kubetest.ReadAPICalls(t, cfg)
	s.Check(t, c)

	// The provider's resources only (the API server writes its own leases).
	calls := after.Minus(before).Only("ipaddressclaims", "ipaddresses", "vmnetipaddresslocks", "vmnetippools", "globalvmnetippools", "events")
	calls["POST ipaddressclaims"] -= n                                               // the test's own creates
	calls["LIST ipaddressclaims"] -= float64(capiipamtest.WatchLists.Load() - lists) // and its watch's restarts
	var total, pool float64
	for k, v := range calls {
		verb, res, _ := strings.Cut(k, " ")
		switch {
		case verb == "WATCH" || strings.HasPrefix(k, "seconds "):
			continue
		case strings.Contains(res, "vmnetippools"):
			pool += v
		}
		total += v
	}
	t.Logf("API requests per claim, %d claims: %s; total %.2f, of which pools %.2f", n, calls.Table(n), total/n, pool/n)
	if perClaim := (total - pool) / n; perClaim > 3 {
		t.Errorf("%.2f requests a claim besides the pools', want at most 3: %s", perClaim, calls.Table(n))
	}
	if perClaim := pool / n; perClaim > 0.25 {
		t.Errorf("%.2f pool requests a claim, want them amortised (at most 0.25): %s", perClaim, calls.Table(n))
	}
	if perClaim := total / n; perClaim > 4 {
		t.Errorf("%.2f requests a claim in all, want at most 4: %s", perClaim, calls.Table(n))
	}
}
