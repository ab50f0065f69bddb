package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestConcurrentClaims: 2,000 claims created at once over an IPv4 and an
// IPv6 pool settle with no address handed out twice, each pool counts them
// exactly, and each pool's counts are written at most once a second.
//
// Nothing it checks waits on the machine's load: the test's own requests
// that the API server fails transiently (a loaded machine's timeouts) are
// tried again (capiipamtest.Retry), the waits are minutes long, and the
// writes counted are the changes of the two pools' status a watch of them
// sees (the API server's request counts would take in the pools of the
// package's other tests), bounded by the time the run took, however long.
func TestConcurrentClaims(t *testing.T) {
	const n = 2000
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "concurrent")
	s := capiipamtest.NewClaimSet(t, c, ns, n)
	writes := watchStatusWrites(t, cfg, ns, s.GlobalPool)
	start := time.Now()
	capiipamtest.StartManager(t, cfg, ns, "epoch-concurrent", nil)
	s.CreateAll(t, c, 0, n)
	created := time.Since(start)
	s.WaitSettled(t, c, 10*time.Minute)
	// Each pool's counts are written at most once a second (countsDelay)
	// whatever the number of claims, plus the writes of CacheReady.
	took := time.Since(start)
	w := writes()
	if limit := 2 * (took.Seconds() + 5); float64(w) > limit {
		t.Errorf("%d pool status writes for %d claims in %v, want at most %.0f (one a second a pool)", w, n, took.Round(time.Second), limit)
	}
	t.Logf("%d claims: created in %v, all settled and checked %v after the manager's start; %d pool status writes",
		n, created.Round(time.Millisecond), took.Round(time.Millisecond), w)
}

// watchStatusWrites watches the ClaimSet's two pools (VMNetIPPool v4 in ns
// and GlobalVMNetIPPool global) and returns a function that tells how many
// times their status changed since the call.
func watchStatusWrites(t *testing.T, cfg *rest.Config, ns, global string) func() int {
	t.Helper()
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: capiipamtest.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var changes atomic.Int64
	watch := func(list client.ObjectList, opts ...client.ListOption) {
		w, err := wc.Watch(ctx, list, opts...)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer w.Stop()
			last := map[string]string{}
			for ev := range w.ResultChan() {
				p, ok := ev.Object.(v1alpha1.Pool)
				if !ok {
					continue
				}
				st, _ := json.Marshal(p.PoolStatus())
				if prev, seen := last[p.GetName()]; seen && prev != string(st) {
					changes.Add(1)
				}
				last[p.GetName()] = string(st)
			}
		}()
	}
	watch(&v1alpha1.VMNetIPPoolList{}, client.InNamespace(ns), client.MatchingFields{"metadata.name": "v4"})
	watch(&v1alpha1.GlobalVMNetIPPoolList{}, client.MatchingFields{"metadata.name": global})
	return func() int { return int(changes.Load()) }
}

// TestRestartMidway: the manager stops while claims are being served; a new
// process (another epoch) rebuilds each pool from the IPAddresses, takes
// over CacheReady, and settles the rest with no address handed out twice.
func TestRestartMidway(t *testing.T) {
	const n = 400
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "restart")
	s := capiipamtest.NewClaimSet(t, c, ns, n)
	m := capiipamtest.StartManager(t, cfg, ns, "epoch-restart-1", nil)
	s.CreateAll(t, c, 0, n/2)
	kubetest.Eventually(t, 2*time.Minute, "some claims settled", func() (bool, string) {
		k := s.Settled(t, c)
		return k >= n/8, fmt.Sprintf("%d settled", k)
	})
	m.Stop()
	before := s.Settled(t, c)
	s.CreateAll(t, c, n/2, n)
	capiipamtest.StartManager(t, cfg, ns, "epoch-restart-2", nil)
	s.WaitSettled(t, c, 5*time.Minute)
	if before >= n {
		t.Errorf("all %d claims settled before the restart: nothing was left for the new process", before)
	}
	v4 := &v1alpha1.VMNetIPPool{ObjectMeta: capiipamtest.MetaOf(ns, "v4")}
	capiipamtest.Get(t, c, v4)
	if v4.Status.CacheEpoch != "epoch-restart-2" || !capiipamtest.HasCondition(v4.Status.Conditions, "CacheReady", metav1.ConditionTrue) {
		t.Errorf("after the restart, pool status %s, want CacheReady True of epoch-restart-2", capiipamtest.StatusText(v4.Status))
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
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "splitbrain")
	s := capiipamtest.NewClaimSet(t, c, ns, n)
	a := capiipamtest.StartManager(t, cfg, ns, "epoch-split-a", nil)
	b := capiipamtest.StartManager(t, cfg, ns, "epoch-split-b", nil)
	start := time.Now()
	s.CreateAll(t, c, 0, n)
	s.WaitSettled(t, c, 5*time.Minute)
	t.Logf("%d claims settled in %v; addresses found locked for another claim: %d by a, %d by b",
		n, time.Since(start).Round(time.Millisecond), a.Losses.Load(), b.Losses.Load())
	if a.Losses.Load()+b.Losses.Load() == 0 {
		t.Errorf("the two managers never collided on an address: the test did not exercise the split-brain guard")
	}
}
