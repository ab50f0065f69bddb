package controller

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
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
// and gives n MACs an address each through allocateNIC, as n claims do:
// the next free one, or, when at is set, the address at(i) asks for.
func fillPool(b *testing.B, spec v1alpha1.IPPoolSpec, n int, at func(i int) netip.Addr) *poolSet {
	s, _, err := buildPoolSet(&v1alpha1.IPPool{Spec: spec})
	if err != nil {
		b.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "ns", Name: "bench"}
	for i := range n {
		mac := fmt.Sprintf("52:54:%02x:%02x:%02x:%02x", i>>24, (i>>16)&0xff, (i>>8)&0xff, i&0xff)
		var want netip.Addr
		if at != nil {
			want = at(i)
		}
		if _, _, err := allocateNIC(s, key, mac, want, n); err != nil {
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
// what is allocated. Claims take the next free address, so those leases
// are dense; the "scattered" pools hold 100,000 addresses spread at random
// over the range (a seeded permutation of the /15, random offsets in the
// /64), as requested addresses or long churn leave them.
//
//	cd examples && GOWORK=off go test -run '^$' -bench BenchmarkPoolMemory -benchtime 3x ./operator/controller/
func BenchmarkPoolMemory(b *testing.B) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	perm4 := rng.Perm(1<<17 - 2) // offsets of the /15's usable addresses
	offs6 := map[uint64]bool{}
	var list6 []uint64
	for len(list6) < n {
		if o := rng.Uint64() | 1; !offs6[o] { // never ::0, the subnet-router anycast address
			offs6[o] = true
			list6 = append(list6, o)
		}
	}
	base4, base6 := netip.MustParseAddr("10.0.0.1").As4(), netip.MustParseAddr("fd00:1::").As16()
	at4 := func(i int) netip.Addr {
		v := binary.BigEndian.Uint32(base4[:]) + uint32(perm4[i])
		var a [4]byte
		binary.BigEndian.PutUint32(a[:], v)
		return netip.AddrFrom4(a)
	}
	at6 := func(i int) netip.Addr {
		a := base6
		binary.BigEndian.PutUint64(a[8:], list6[i])
		return netip.AddrFrom16(a)
	}
	specs := []struct {
		name string
		spec v1alpha1.IPPoolSpec
		at   func(int) netip.Addr
	}{
		{"v4", v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/15"}, nil},
		{"v6", v1alpha1.IPPoolSpec{CIDR: "fd00:1::/64"}, nil},
		{"v4-scattered", v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/15"}, at4},
		{"v6-scattered", v1alpha1.IPPoolSpec{CIDR: "fd00:1::/64"}, at6},
	}
	pool := map[string]uint64{}
	status := map[string]uint64{}
	for range b.N {
		for _, s := range specs {
			var filled *poolSet
			pool[s.name] += heapGrowth(func() any { filled = fillPool(b, s.spec, n, s.at); return filled })
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
	b.ReportMetric(per(pool["v4-scattered"]), "v4-scattered-pool-B/lease")
	b.ReportMetric(per(pool["v6-scattered"]), "v6-scattered-pool-B/lease")
	b.ReportMetric(per(pool["v6-scattered"])/per(pool["v4-scattered"]), "v6/v4-scattered")
	b.ReportMetric(per(status["v4"]), "v4-status-B/lease")
	b.ReportMetric(per(status["v6"]), "v6-status-B/lease")
	b.ReportMetric(per(status["v6-scattered"]), "v6-scattered-status-B/lease")
	b.ReportMetric(0, "ns/op") // the time is the fill's, not what is measured
}
