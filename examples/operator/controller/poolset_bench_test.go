package controller

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// heapGrowth returns how many bytes of live heap build leaves behind (what
// it returns is kept alive until measured).
func heapGrowth(build func() any) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// fillPool builds the operator's in-memory pool for spec (buildPoolSet)
// and gives n MACs an address each through allocateNIC, as n claims do.
func fillPool(b *testing.B, spec v1alpha1.IPPoolSpec, n int) *poolSet {
	s, _, err := buildPoolSet(&v1alpha1.IPPool{Spec: spec})
	if err != nil {
		b.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "ns", Name: "bench"}
	for i := range n {
		mac := fmt.Sprintf("52:54:%02x:%02x:%02x:%02x", i>>24, (i>>16)&0xff, (i>>8)&0xff, i&0xff)
		if _, _, err := allocateNIC(s, key, mac, netip.Addr{}, n); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkPoolMemory measures, in one run, the live heap of the operator's
// in-memory pool (the ipam.Pool a poolEntry holds) with 100,000 addresses
// handed out from an IPv4 /15 and from an IPv6 /64, and of the status
// object the entry keeps beside it (status.allocated as strings), in bytes
// per lease; rounds alternate the families. v6/v4 is the ratio of the
// pools. The /64's range (2^64 addresses) costs nothing: memory follows
// what is allocated.
//
//	cd examples && GOWORK=off go test -run '^$' -bench BenchmarkPoolMemory -benchtime 3x ./operator/controller/
func BenchmarkPoolMemory(b *testing.B) {
	const n = 100_000
	specs := []struct {
		name string
		spec v1alpha1.IPPoolSpec
	}{
		{"v4", v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/15"}},
		{"v6", v1alpha1.IPPoolSpec{CIDR: "fd00:1::/64"}},
	}
	pool := map[string]uint64{}
	status := map[string]uint64{}
	for range b.N {
		for _, s := range specs {
			var filled *poolSet
			pool[s.name] += heapGrowth(func() any { filled = fillPool(b, s.spec, n); return filled })
			status[s.name] += heapGrowth(func() any {
				st := &v1alpha1.IPPoolStatus{}
				writeSetStats(st, filled)
				return st
			})
			runtime.KeepAlive(filled)
		}
	}
	per := func(v uint64) float64 { return float64(v) / float64(b.N) / n }
	b.ReportMetric(per(pool["v4"]), "v4-pool-B/lease")
	b.ReportMetric(per(pool["v6"]), "v6-pool-B/lease")
	b.ReportMetric(per(pool["v6"])/per(pool["v4"]), "v6/v4")
	b.ReportMetric(per(status["v4"]), "v4-status-B/lease")
	b.ReportMetric(per(status["v6"]), "v6-status-B/lease")
	b.ReportMetric(0, "ns/op") // the time is the fill's, not what is measured
}
