package controller_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// The tests' pools. Both set rangeStart and rangeEnd (see limitsOf).
var (
	pool4 = v1alpha1.IPPoolSpec{
		Network: "vm-net-4", CIDR: "10.20.0.0/23",
		RangeStart: "10.20.0.10", RangeEnd: "10.20.1.250",
		Exclude:  []string{"10.20.0.100-10.20.0.119", "10.20.1.0/28", "10.20.1.77"},
		ServerIP: "10.20.0.10", Router: "10.20.0.1",
		DNS: []string{"10.20.0.1"}, NTP: []string{"10.20.0.1"}, Domain: "vms.example",
		LeaseTime: &metav1.Duration{Duration: time.Hour},
	}
	pool6 = v1alpha1.IPPoolSpec{
		Network: "vm-net-6", CIDR: "fd00:20::/64",
		RangeStart: "fd00:20::10", RangeEnd: "fd00:20::ffff:ffff:ffff:ffff",
		Exclude:  []string{"fd00:20::80/121", "fd00:20::1:0-fd00:20::1:ff"},
		ServerIP: "fd00:20::10", Router: "fd00:20::1",
		Strategy: v1alpha1.StrategySequential,
	}
)

func createPool(t *testing.T, c client.Client, ns, name string, spec v1alpha1.IPPoolSpec) {
	t.Helper()
	p := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	if err := c.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// claim returns VM i's claim: one NIC on each pool; every 25th VM asks for a
// fixed IPv4 address near the end of the range.
func claim(ns string, i int) *v1alpha1.VMNetworkConfig {
	vc := &v1alpha1.VMNetworkConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("vm-%03d", i)},
		Spec: v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{
			{MAC: fmt.Sprintf("52:54:00:04:%02x:%02x", i>>8, i&0xff), Pool: "net4"},
			{MAC: fmt.Sprintf("52:54:00:06:%02x:%02x", i>>8, i&0xff), Pool: "net6"},
		}},
	}
	if i%25 == 0 {
		vc.Spec.NICs[0].Address = fmt.Sprintf("10.20.1.%d", 200+i/25)
	}
	return vc
}

// poolEvent is one CacheReady seen on a pool by the test's watch.
type poolEvent struct {
	pool, status, reason, epoch string
}

// recordPools watches the IPPools of ns and records their CacheReady
// condition at every change. The returned stopAt waits until the watch has
// recorded CacheReady=True for epoch on each named pool, then stops it: a
// watch event can arrive after a Get has already returned the object, so a
// watch stopped as soon as a Get sees the pool Ready may lose the last event.
func recordPools(t *testing.T, c client.WithWatch, ns string) (events func() []poolEvent, stopAt func(epoch string, names ...string)) {
	t.Helper()
	w, err := c.Watch(context.Background(), &v1alpha1.IPPoolList{}, client.InNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		got []poolEvent
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*v1alpha1.IPPool)
			if !ok || ev.Type == watch.Error {
				continue
			}
			st, reason := cacheReady(p)
			e := poolEvent{p.Name, st, reason, p.Status.CacheEpoch}
			mu.Lock()
			if n := len(got); n == 0 || !hasLast(got, e) {
				got = append(got, e)
			}
			mu.Unlock()
		}
	}()
	events = func() []poolEvent {
		mu.Lock()
		defer mu.Unlock()
		return append([]poolEvent(nil), got...)
	}
	return events, func(epoch string, names ...string) {
		t.Helper()
		defer func() { w.Stop(); <-done }()
		kubetest.Eventually(t, 30*time.Second, "the watch to record CacheReady=True for epoch "+epoch, func() (bool, string) {
			got := events()
			for _, name := range names {
				if !hasLast(got, poolEvent{name, "True", "CacheBuilt", epoch}) {
					return false, fmt.Sprintf("pool %s: recorded %v", name, got)
				}
			}
			return true, ""
		})
	}
}

// hasLast reports whether e repeats the last event recorded for its pool.
func hasLast(got []poolEvent, e poolEvent) bool {
	for i := len(got) - 1; i >= 0; i-- {
		if got[i].pool == e.pool {
			return got[i] == e
		}
	}
	return false
}

// TestRestart is the scenario of the operator's README section: two pools,
// 200 claims at once, a restart that must not trust the old process's
// CacheReady, then 50 more claims and 50 deletions at once.
func TestRestart(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "restart")
	createPool(t, c, ns, "net4", pool4)
	createPool(t, c, ns, "net6", pool6)

	step := time.Now()
	first := startManager(t, cfg, ns, "epoch-first", nil)
	waitPoolsReady(t, c, ns, first.epoch, "net4", "net6")
	if err := kubetest.InParallel(200, 16, func(i int) error { return c.Create(ctx, claim(ns, i)) }); err != nil {
		t.Fatal(err)
	}
	waitClaimsReady(t, c, ns, 200)
	checkState(t, c, ns)
	t.Logf("200 claims (400 NICs) Ready in %v", time.Since(step).Round(time.Millisecond))

	first.stop()
	for _, name := range []string{"net4", "net6"} {
		p := &v1alpha1.IPPool{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p); err != nil {
			t.Fatal(err)
		}
		if st, _ := cacheReady(p); st != "True" || p.Status.CacheEpoch != first.epoch {
			t.Fatalf("pool %s after the stop: CacheReady=%s epoch %q, want the old process's True (epoch %q)", name, st, p.Status.CacheEpoch, first.epoch)
		}
	}

	step = time.Now()
	events, stopWatch := recordPools(t, c, ns)
	second := startManager(t, cfg, ns, "epoch-second", nil)
	waitPoolsReady(t, c, ns, second.epoch, "net4", "net6")
	stopWatch(second.epoch, "net4", "net6")
	t.Logf("restart: both pools rebuilt and Ready in %v", time.Since(step).Round(time.Millisecond))
	for _, name := range []string{"net4", "net6"} {
		var seq []poolEvent
		for _, e := range events() {
			if e.pool == name {
				seq = append(seq, e)
			}
		}
		want := []poolEvent{
			{name, "True", "CacheBuilt", first.epoch},
			{name, "False", "OwnerRestarted", second.epoch},
			{name, "True", "CacheBuilt", second.epoch},
		}
		if fmt.Sprint(seq) != fmt.Sprint(want) {
			t.Errorf("pool %s: CacheReady went through\n%v\nwant\n%v", name, seq, want)
		}
	}

	step = time.Now()
	err := kubetest.InParallel(100, 16, func(i int) error {
		if i < 50 {
			return c.Create(ctx, claim(ns, 200+i))
		}
		return c.Delete(ctx, claim(ns, 2*(i-50)+1)) // the odd ones below 100
	})
	if err != nil {
		t.Fatal(err)
	}
	waitClaimsReady(t, c, ns, 200)
	checkState(t, c, ns)
	t.Logf("50 claims created and 50 deleted at once, all settled in %v", time.Since(step).Round(time.Millisecond))
	t.Logf("IPPool status write conflicts: first process %d, second %d", first.conflicts.Load(), second.conflicts.Load())
}
