package controller

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// Metrics (what is exported).
//
// Per pool, in controller-runtime's registry (labels namespace and pool):
// vmnetkit_ippool_size_addresses, _used_addresses, _available_addresses,
// _max_allocations, _restore_problems, _cache_ready (0 or 1) and the counter
// vmnetkit_ippool_allocations_total (addresses of both families); for the
// IPv6 part of a dual-stack pool, vmnetkit_ippool_ipv6_size_addresses,
// _ipv6_used_addresses and _ipv6_available_addresses. A deleted pool's
// series are removed.

// poolLabels are the labels of every per-pool metric: the IPPool's namespace
// and name.
var poolLabels = []string{"namespace", "pool"}

// Per-pool metrics, registered in controller-runtime's registry (served on
// the manager's metrics endpoint). Counts of addresses are float64: exact up
// to 2^53, approximate beyond (the size of an IPv6 pool).
var (
	poolSize = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vmnetkit_ippool_size_addresses",
		Help: "Usable addresses in the IPPool's range (status.size).",
	}, poolLabels)
	poolUsed = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vmnetkit_ippool_used_addresses",
		Help: "Addresses the IPPool has handed out to MACs (status.used).",
	}, poolLabels)
	poolAvailable = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vmnetkit_ippool_available_addresses",
		Help: "Addresses of the IPPool still free (status.available).",
	}, poolLabels)
	poolLimitGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vmnetkit_ippool_max_allocations",
		Help: "Most addresses the IPPool hands out (-max-allocations-per-pool or spec.maxAllocations); used at this value means CapacityLimited.",
	}, poolLabels)
	poolRestoreProblems = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vmnetkit_ippool_restore_problems",
		Help: "Entries of status.allocated the last rebuild of the in-memory pool left out (conflicts, addresses out of range).",
	}, poolLabels)
	poolCacheReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vmnetkit_ippool_cache_ready",
		Help: "1 when this process's in-memory pool is built and CacheReady is True for it, 0 otherwise.",
	}, poolLabels)
	poolAllocations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vmnetkit_ippool_allocations_total",
		Help: "Addresses handed out by this process (written to the IPPool's status), both families of a dual-stack pool; rate() gives allocations per second.",
	}, poolLabels)

	// The IPv6 part of a dual-stack IPPool (status.ipv6); the gauges above
	// count spec.cidr's part. A pool without an IPv6 part has no series.
	poolIPv6Size = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vmnetkit_ippool_ipv6_size_addresses",
		Help: "Usable addresses in the range of the IPPool's IPv6 part (status.ipv6.size).",
	}, poolLabels)
	poolIPv6Used = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vmnetkit_ippool_ipv6_used_addresses",
		Help: "Addresses the IPPool's IPv6 part has handed out to MACs (status.ipv6.used).",
	}, poolLabels)
	poolIPv6Available = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "vmnetkit_ippool_ipv6_available_addresses",
		Help: "Addresses of the IPPool's IPv6 part still free (status.ipv6.available).",
	}, poolLabels)
)

func init() {
	metrics.Registry.MustRegister(poolSize, poolUsed, poolAvailable, poolLimitGauge, poolRestoreProblems, poolCacheReady, poolAllocations,
		poolIPv6Size, poolIPv6Used, poolIPv6Available)
}

// observeLocked sets the gauges of pool key from e, whose mu the caller
// holds.
// Counts come from the last status this process read or wrote; they keep
// their last value while the cache is not ready.
func observeLocked(key types.NamespacedName, e *poolEntry, limit int) {
	l := prometheus.Labels{"namespace": key.Namespace, "pool": key.Name}
	ready := 0.0
	if e.readyLocked() {
		ready = 1
	}
	poolCacheReady.With(l).Set(ready)
	poolRestoreProblems.With(l).Set(float64(e.problems))
	poolAllocations.With(l) // present (at 0) from the first observation, so rate() has a start
	if e.obj == nil {
		return
	}
	poolLimitGauge.With(l).Set(float64(poolLimit(e.obj.Spec, limit)))
	for _, g := range []struct {
		vec *prometheus.GaugeVec
		v   string
	}{{poolSize, e.obj.Status.Size}, {poolUsed, e.obj.Status.Used}, {poolAvailable, e.obj.Status.Available}} {
		if f, err := strconv.ParseFloat(g.v, 64); err == nil {
			g.vec.With(l).Set(f)
		}
	}
	six := e.obj.Status.IPv6
	for _, g := range []struct {
		vec *prometheus.GaugeVec
		v   func(*v1alpha1.IPPoolFamilyStatus) string
	}{
		{poolIPv6Size, func(s *v1alpha1.IPPoolFamilyStatus) string { return s.Size }},
		{poolIPv6Used, func(s *v1alpha1.IPPoolFamilyStatus) string { return s.Used }},
		{poolIPv6Available, func(s *v1alpha1.IPPoolFamilyStatus) string { return s.Available }},
	} {
		if six == nil {
			g.vec.Delete(l)
			continue
		}
		if f, err := strconv.ParseFloat(g.v(six), 64); err == nil {
			g.vec.With(l).Set(f)
		}
	}
}

// countAllocations adds n addresses handed out to pool key's counter.
func countAllocations(key types.NamespacedName, n int) {
	if n > 0 {
		poolAllocations.WithLabelValues(key.Namespace, key.Name).Add(float64(n))
	}
}

// forget removes every metric of pool key: a deleted pool has no series.
func forget(key types.NamespacedName) {
	for _, vec := range []*prometheus.MetricVec{poolSize.MetricVec, poolUsed.MetricVec, poolAvailable.MetricVec,
		poolLimitGauge.MetricVec, poolRestoreProblems.MetricVec, poolCacheReady.MetricVec, poolAllocations.MetricVec,
		poolIPv6Size.MetricVec, poolIPv6Used.MetricVec, poolIPv6Available.MetricVec} {
		vec.DeleteLabelValues(key.Namespace, key.Name)
	}
}
