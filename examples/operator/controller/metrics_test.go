package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// poolMetrics returns the vmnetkit_ippool_* series of pool ns/name in
// controller-runtime's registry, by metric name.
func poolMetrics(t *testing.T, ns, name string) map[string]float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["namespace"] != ns || labels["pool"] != name {
				continue
			}
			if m.GetCounter() != nil {
				got[f.GetName()] = m.GetCounter().GetValue()
			} else {
				got[f.GetName()] = m.GetGauge().GetValue()
			}
		}
	}
	return got
}

// TestPoolMetrics checks the per-pool series against the pool's status
// (size, used, available, limit, CacheReady, problems of the last restore,
// allocations handed out), and that a deleted pool's series disappear.
func TestPoolMetrics(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "metrics")
	// The status holds one entry the pool cannot keep (out of range): a
	// problem of the restore.
	spec := v1alpha1.IPPoolSpec{Network: "vm-net", CIDR: "10.70.0.0/24", RangeStart: "10.70.0.10", RangeEnd: "10.70.0.19"}
	p := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "net"}, Spec: spec}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Status.Allocated = map[string]string{"10.70.0.200": "52:54:00:70:00:ff"}
	if err := c.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	m := startManagerWith(t, cfg, ns, "epoch-metrics", nil, controller.Options{MaxAllocations: 7})
	waitPoolsReady(t, c, ns, m.epoch, "net")
	for i := range 3 {
		if err := c.Create(ctx, claimOn(ns, fmt.Sprintf("vm-%d", i), fmt.Sprintf("52:54:00:70:00:%02x", i), "net")); err != nil {
			t.Fatal(err)
		}
	}
	waitClaimsReady(t, c, ns, 3)
	want := map[string]float64{
		"vmnetkit_ippool_size_addresses":      10,
		"vmnetkit_ippool_used_addresses":      3,
		"vmnetkit_ippool_available_addresses": 7,
		"vmnetkit_ippool_max_allocations":     7,
		"vmnetkit_ippool_cache_ready":         1,
		"vmnetkit_ippool_restore_problems":    1,
		"vmnetkit_ippool_allocations_total":   3,
	}
	var diff string
	kubetest.Eventually(t, 10*time.Second, "the pool's series", func() (bool, string) {
		diff = cmp.Diff(want, poolMetrics(t, ns, "net"))
		return diff == "", "(-want +got):\n" + diff
	})

	if err := c.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, 10*time.Second, "no series of the deleted pool", func() (bool, string) {
		got := poolMetrics(t, ns, "net")
		return len(got) == 0, fmt.Sprint(got)
	})
}

// TestPoolMetricsDualStack checks the IPv6 part's series of a dual-stack
// pool beside the IPv4 part's, the limit per family (half the operator's),
// and allocations_total counting the addresses of both families.
func TestPoolMetricsDualStack(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "metrics-dual")
	createPool(t, c, ns, "dual", v1alpha1.IPPoolSpec{Network: "vm-net", CIDR: "10.71.0.0/24", RangeStart: "10.71.0.10", RangeEnd: "10.71.0.19",
		IPv6: &v1alpha1.IPPoolIPv6Spec{CIDR: "fd00:71::/64"}})
	m := startManagerWith(t, cfg, ns, "epoch-metrics-dual", nil, controller.Options{MaxAllocations: 14})
	waitPoolsReady(t, c, ns, m.epoch, "dual")
	for i := range 3 {
		if err := c.Create(ctx, claimOn(ns, fmt.Sprintf("vm-%d", i), fmt.Sprintf("52:54:00:71:00:%02x", i), "dual")); err != nil {
			t.Fatal(err)
		}
	}
	waitClaimsReady(t, c, ns, 3)
	want := map[string]float64{
		"vmnetkit_ippool_size_addresses":           10,
		"vmnetkit_ippool_used_addresses":           3,
		"vmnetkit_ippool_available_addresses":      7,
		"vmnetkit_ippool_ipv6_size_addresses":      1<<64 - 1, // as float64: approximate
		"vmnetkit_ippool_ipv6_used_addresses":      3,
		"vmnetkit_ippool_ipv6_available_addresses": 1<<64 - 4,
		"vmnetkit_ippool_max_allocations":          7,
		"vmnetkit_ippool_cache_ready":              1,
		"vmnetkit_ippool_restore_problems":         0,
		"vmnetkit_ippool_allocations_total":        6,
	}
	kubetest.Eventually(t, 10*time.Second, "the pool's series", func() (bool, string) {
		diff := cmp.Diff(want, poolMetrics(t, ns, "dual"))
		return diff == "", "(-want +got):\n" + diff
	})
}
