package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// prefilledPool creates pool name in ns with spec and a status holding n
// allocations to synthetic MACs, written as the operator writes them
// (ipam.FormatAllocated of a pool filled with Allocate), and returns the
// status map.
func prefilledPool(t *testing.T, c client.Client, ns, name string, spec v1alpha1.IPPoolSpec, n int) map[string]string {
	t.Helper()
	p := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	if err := c.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if err := writeFilled(t, c, p, n); err != nil {
		t.Fatalf("write a status of %d allocations: %v", n, err)
	}
	return p.Status.Allocated
}

// writeFilled writes into p's status n allocations to synthetic MACs, as
// the operator writes them, and returns the API server's error.
func writeFilled(t *testing.T, c client.Client, p *v1alpha1.IPPool, n int) error {
	t.Helper()
	ctx := context.Background()
	if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
		t.Fatal(err)
	}
	pool := filledPool(t, p.Spec, n)
	p.Status.Allocated = ipam.FormatAllocated(pool.Snapshot())
	st := pool.Stats()
	p.Status.Size, p.Status.Used, p.Status.Available = st.Size.String(), st.Allocated.String(), st.Free.String()
	return c.Status().Update(ctx, p)
}

// filledPool is a pool of spec with n allocations to synthetic MACs, made
// with Allocate, as the operator hands them out.
func filledPool(t *testing.T, spec v1alpha1.IPPoolSpec, n int) *ipam.Pool {
	t.Helper()
	s, err := spec.ParseSpec()
	if err != nil {
		t.Fatal(err)
	}
	pool, err := ipam.New(s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := pool.Allocate(fmt.Sprintf("52:54:00:%02x:%02x:%02x", i>>16, (i>>8)&0xff, i&0xff)); err != nil {
			t.Fatal(err)
		}
	}
	return pool
}

// TestCapacityLimitAtDefault runs the operator at its default limit on a pool
// whose status already holds DefaultMaxAllocations-1 allocations (as after a
// restart): it rebuilds the pool (the time is logged), hands out the last
// address, reports CapacityLimited, and refuses the next claim; every
// allocation of the status is kept and none is given twice.
func TestCapacityLimitAtDefault(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "at-default")
	limit := controller.DefaultMaxAllocations
	spec := v1alpha1.IPPoolSpec{Network: "vm-net", CIDR: "10.60.0.0/16", ServerIP: "10.60.0.1", Router: "10.60.0.1"}
	before := prefilledPool(t, c, ns, "big", spec, limit-1)

	start := time.Now()
	m := startManager(t, cfg, ns, "epoch-default", nil)
	waitPoolsReady(t, c, ns, m.epoch, "big")
	t.Logf("restart: CacheReady=True for a pool of %d allocations %v after the manager started", limit-1, time.Since(start).Round(time.Millisecond))

	if err := c.Create(ctx, claimOn(ns, "last", "52:54:00:ff:00:01", "big")); err != nil {
		t.Fatal(err)
	}
	waitReady(t, c, ns, "last", "True/")
	waitCapacity(t, c, ns, "big", metav1.ConditionTrue, fmt.Sprintf("%d of at most %d addresses handed out", limit, limit))
	if err := c.Create(ctx, claimOn(ns, "refused", "52:54:00:ff:00:02", "big")); err != nil {
		t.Fatal(err)
	}
	waitReady(t, c, ns, "refused", "False/"+controller.ReasonCapacityLimited)
	kubetest.Eventually(t, 30*time.Second, "a CapacityLimited Event on the refused claim", func() (bool, string) {
		evs := capacityEvents(t, c, ns, "refused")
		return len(evs) == 1, fmt.Sprint(evs)
	})

	p := &v1alpha1.IPPool{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "big"}, p); err != nil {
		t.Fatal(err)
	}
	if p.Status.Used != fmt.Sprint(limit) {
		t.Errorf("status.used = %s, want %d", p.Status.Used, limit)
	}
	lost := 0
	for a, owner := range before {
		if p.Status.Allocated[a] != owner {
			lost++
		}
	}
	if lost > 0 || len(p.Status.Allocated) != len(before)+1 {
		t.Errorf("%d allocations of the status lost or moved; %d entries, want %d", lost, len(p.Status.Allocated), len(before)+1)
	}
	vc := &v1alpha1.VMNetworkConfig{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "last"}, vc); err != nil {
		t.Fatal(err)
	}
	if len(vc.Status.NICs) != 1 || before[vc.Status.NICs[0].Address] != "" || p.Status.Allocated[vc.Status.NICs[0].Address] != "52:54:00:ff:00:01" {
		t.Errorf("claim status %+v: want a new address, held in the pool by its MAC", vc.Status.NICs)
	}
}

// TestRestartNearCeiling measures how long a restarted operator takes to
// rebuild a pool whose status is near the measured ceiling (44,000 IPv4
// allocations; TestStatusMapCeiling measures about 44,900): from the
// manager's start to the pool's CacheReady=False/OwnerRestarted (the first
// status write of the new process) and to CacheReady=True (rebuilt, the
// second write), as a watch sees them; and, for comparison, one status write
// of the same object by the test. Run with -v for the times.
func TestRestartNearCeiling(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "near-ceiling")
	const n = 44000
	spec := v1alpha1.IPPoolSpec{Network: "vm-net", CIDR: "10.64.0.0/16", ServerIP: "10.64.0.1", Router: "10.64.0.1"}
	before := prefilledPool(t, c, ns, "full", spec, n)
	for i := range 3 {
		w, err := c.Watch(ctx, &v1alpha1.IPPoolList{}, client.InNamespace(ns))
		if err != nil {
			t.Fatal(err)
		}
		epoch := fmt.Sprintf("epoch-near-ceiling-%d", i)
		start := time.Now()
		m := startManagerWith(t, cfg, ns, epoch, nil, controller.Options{MaxAllocations: n})
		var toFalse, toTrue time.Duration
		timeout := time.After(60 * time.Second)
		for toTrue == 0 {
			select {
			case ev := <-w.ResultChan():
				p, ok := ev.Object.(*v1alpha1.IPPool)
				if !ok || p.Status.CacheEpoch != epoch {
					continue
				}
				switch st, _ := cacheReady(p); {
				case st == "False" && toFalse == 0:
					toFalse = time.Since(start)
				case st == "True":
					toTrue = time.Since(start)
				}
			case <-timeout:
				t.Fatalf("restart %d: no CacheReady=True for epoch %s after 60s", i, epoch)
			}
		}
		w.Stop()
		t.Logf("restart %d with %d allocations: CacheReady=False/OwnerRestarted %v after the manager started, True %v",
			i, n, toFalse.Round(10*time.Millisecond), toTrue.Round(10*time.Millisecond))
		m.stop()
	}
	p := &v1alpha1.IPPool{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "full"}, p); err != nil {
		t.Fatal(err)
	}
	if !mapsEqual(before, p.Status.Allocated) || p.Status.Used != fmt.Sprint(n) {
		t.Errorf("after the restarts, status.used = %s and the status map differs from the one written:\n%s", p.Status.Used, mapDiff(before, p.Status.Allocated))
	}
	if cond := capacityOf(t, c, ns, "full"); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("CapacityLimited = %+v, want True at %d of %d", cond, n, n)
	}
	for i := range 3 {
		p.Status.CacheEpoch = fmt.Sprintf("written-by-the-test-%d", i)
		start := time.Now()
		if err := c.Status().Update(ctx, p); err != nil {
			t.Fatal(err)
		}
		t.Logf("one status write of the same object by the test: %v", time.Since(start).Round(10*time.Millisecond))
	}
}

// TestStatusTooLarge runs the operator with a limit above what the API server
// holds, on two pools of full-length IPv6 addresses filled by a search
// (searchCeiling) for the point where the API server refuses their status:
//   - one filled to the very edge, which cannot take even the operator's
//     first condition: one Warning Event (StatusTooLarge), and the write is
//     not retried;
//   - one filled to a few dozen allocations below it, then 40 claims at once.
//     The write that does not fit is refused once; the pool reports
//     CapacityLimited (StatusTooLarge) with the number, the claims that did
//     not fit wait with reason CapacityLimited, the pool's status is not
//     written again while they wait, and no allocation is lost or given twice.
func TestStatusTooLarge(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "too-large")
	spec := v1alpha1.IPPoolSpec{Network: "vm-net", CIDR: "fd00:20:1:1::/64", RangeStart: "fd00:20:1:1:8a5b:9c6d:1000:1000"}
	p := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "v6"}, Spec: spec}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	// 20,000 fits (TestStatusMapCeiling measures about 29,100); from that
	// object's size the search aims at the edge.
	if err := writeFilled(t, c, p, 20000); err != nil {
		t.Fatal(err)
	}
	write := func(n int) error { return writeFilled(t, c, p, n) }
	ok, bad, _ := searchCeiling(t, write, guessCeiling(t, p, 20000, func(n int) int {
		return jsonSize(t, ipam.FormatAllocated(filledPool(t, spec, n).Snapshot()))
	}), 2)
	const headroom = 30 // room for the operator's conditions and ~20 allocations
	if err := writeFilled(t, c, p, ok-headroom); err != nil {
		t.Fatal(err)
	}
	before := p.Status.Allocated
	t.Logf("the API server takes %d full-length IPv6 allocations, refuses %d; the pool starts with %d", ok, bad, len(before))
	// A second pool (same name length) at the very edge: not even the
	// operator's first condition fits.
	edge := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "v7"}, Spec: spec}
	if err := c.Create(ctx, edge); err != nil {
		t.Fatal(err)
	}
	if err := writeFilled(t, c, edge, ok); err != nil {
		t.Fatal(err)
	}

	m := startManagerWith(t, cfg, ns, "epoch-too-large", nil, controller.Options{MaxAllocations: 40000})
	waitPoolsReady(t, c, ns, m.epoch, "v6")

	// The edge pool: one Warning Event, and no retry of the refused write.
	kubetest.Eventually(t, 30*time.Second, "a StatusTooLarge Event on the pool at the edge", func() (bool, string) {
		var list corev1.EventList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		for _, ev := range list.Items {
			if ev.InvolvedObject.Name == "v7" && ev.Reason == controller.ReasonStatusTooLarge && ev.Type == corev1.EventTypeWarning {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events, none StatusTooLarge on v7; too-large writes %d", len(list.Items), m.tooLarge.Load())
	})
	refused := m.tooLarge.Load()
	time.Sleep(3 * time.Second)
	if now := m.tooLarge.Load(); now != refused || refused == 0 {
		t.Errorf("status writes refused as too large: %d when the Event was posted, %d three seconds later; want the same, not 0", refused, now)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(edge), edge); err != nil {
		t.Fatal(err)
	}
	if len(edge.Status.Allocated) != ok || len(edge.Status.Conditions) != 0 {
		t.Errorf("pool at the edge: %d entries, conditions %+v; want its %d entries untouched", len(edge.Status.Allocated), edge.Status.Conditions, ok)
	}
	const claims = 40
	if err := kubetest.InParallel(claims, 8, func(i int) error {
		return c.Create(ctx, claimOn(ns, fmt.Sprintf("vm-%02d", i), fmt.Sprintf("52:54:00:ee:00:%02x", i), "v6"))
	}); err != nil {
		t.Fatal(err)
	}
	waitCapacity(t, c, ns, "v6", metav1.ConditionTrue, "")
	if cond := capacityOf(t, c, ns, "v6"); cond.Reason != controller.ReasonStatusTooLarge {
		t.Errorf("CapacityLimited = %s/%s %q, want reason %s", cond.Status, cond.Reason, cond.Message, controller.ReasonStatusTooLarge)
	}
	var ready, waiting int
	kubetest.Eventually(t, 2*time.Minute, "every claim Ready or waiting with CapacityLimited", func() (bool, string) {
		ready, waiting = 0, 0
		var other []string
		for i := range claims {
			name := fmt.Sprintf("vm-%02d", i)
			switch got := readyOf(t, c, ns, name); {
			case strings.HasPrefix(got, "True/"):
				ready++
			case strings.HasPrefix(got, "False/"+controller.ReasonCapacityLimited):
				waiting++
			default:
				other = append(other, name+": "+got)
			}
		}
		return len(other) == 0, fmt.Sprint(other)
	})
	if ready == 0 || waiting == 0 {
		t.Errorf("%d claims Ready, %d waiting: want some of each", ready, waiting)
	}
	t.Logf("%d claims got an address, %d wait with CapacityLimited", ready, waiting)
	v := poolVersion(t, c, ns, "v6")
	time.Sleep(2 * time.Second)
	if after := poolVersion(t, c, ns, "v6"); after != v {
		t.Errorf("pool written while the claims wait: resourceVersion %s -> %s", v, after)
	}

	// Nothing lost, nothing given twice.
	if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
		t.Fatal(err)
	}
	for a, owner := range before {
		if p.Status.Allocated[a] != owner {
			t.Errorf("allocation %s -> %s lost (now %q)", a, owner, p.Status.Allocated[a])
		}
	}
	var list v1alpha1.VMNetworkConfigList
	if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	given := map[string]string{}
	for _, vc := range list.Items {
		for _, n := range vc.Status.NICs {
			if other, dup := given[n.Address]; dup {
				t.Errorf("address %s given to %s and %s", n.Address, other, n.MAC)
			}
			given[n.Address] = n.MAC
			if p.Status.Allocated[n.Address] != n.MAC {
				t.Errorf("claim %s holds %s, the pool has %q there", vc.Name, n.Address, p.Status.Allocated[n.Address])
			}
		}
	}
	if len(p.Status.Allocated) != len(before)+len(given) || len(given) != ready {
		t.Errorf("pool holds %d entries, want %d before + %d claims' (%d Ready)", len(p.Status.Allocated), len(before), len(given), ready)
	}
}
