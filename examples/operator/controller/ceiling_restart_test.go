package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	ctx := context.Background()
	p := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
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
	p.Status.Allocated = ipam.FormatAllocated(pool.Snapshot())
	st := pool.Stats()
	p.Status.Size, p.Status.Used, p.Status.Available = st.Size.String(), st.Allocated.String(), st.Free.String()
	if err := c.Status().Update(ctx, p); err != nil {
		t.Fatalf("write a status of %d allocations: %v", n, err)
	}
	return p.Status.Allocated
}

// TestCapacityLimitAtDefault runs the operator at its default limit on a pool
// whose status already holds DefaultMaxAllocations-1 allocations (as after a
// restart): it rebuilds the pool (the time is logged), hands out the last
// address, reports CapacityLimited, and refuses the next claim; every
// allocation of the status is kept and none is given twice.
func TestCapacityLimitAtDefault(t *testing.T) {
	cfg := apiServer(t)
	c := newClient(t, cfg)
	ctx := context.Background()
	ns := createNamespace(t, c, "at-default")
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
	eventually(t, 30*time.Second, "a CapacityLimited Event on the refused claim", func() (bool, string) {
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
// allocations; TestStatusMapCeiling measures about 44,900), from the
// manager's start to CacheReady=True. Run with -v for the time.
func TestRestartNearCeiling(t *testing.T) {
	cfg := apiServer(t)
	c := newClient(t, cfg)
	ns := createNamespace(t, c, "near-ceiling")
	const n = 44000
	spec := v1alpha1.IPPoolSpec{Network: "vm-net", CIDR: "10.64.0.0/16", ServerIP: "10.64.0.1", Router: "10.64.0.1"}
	before := prefilledPool(t, c, ns, "full", spec, n)
	for i := range 2 {
		start := time.Now()
		m := startManagerWith(t, cfg, ns, fmt.Sprintf("epoch-near-ceiling-%d", i), nil, controller.Options{MaxAllocations: n})
		waitPoolsReady(t, c, ns, m.epoch, "full")
		t.Logf("restart %d: CacheReady=True for a pool of %d allocations %v after the manager started", i, n, time.Since(start).Round(time.Millisecond))
		m.stop()
	}
	p := &v1alpha1.IPPool{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "full"}, p); err != nil {
		t.Fatal(err)
	}
	if !mapsEqual(before, p.Status.Allocated) || p.Status.Used != fmt.Sprint(n) {
		t.Errorf("after the restarts, status.used = %s and the status map differs from the one written:\n%s", p.Status.Used, mapDiff(before, p.Status.Allocated))
	}
	if cond := capacityOf(t, c, ns, "full"); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("CapacityLimited = %+v, want True at %d of %d", cond, n, n)
	}
}
