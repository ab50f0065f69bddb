package controller

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/incluster"
)

// benchPools are the pools of BenchmarkClaim, 90% full: an IPv4 /18 and
// an IPv6 range of 100,000 addresses in a /64.
var benchPools = []struct {
	name string
	spec v1alpha1.PoolSpec
	used int
}{
	{"IPv4-slash18", v1alpha1.PoolSpec{Addresses: []string{"10.64.0.0/18"}, Prefix: 18, Gateway: "10.64.0.1"}, 16381 * 9 / 10},
	{"IPv6-100k", v1alpha1.PoolSpec{Addresses: []string{"fd00:64::-fd00:64::1:869f"}, Prefix: 64, Gateway: "fd00:64::1"}, 99998 * 9 / 10},
}

// benchAddresses returns the IPAddresses of a pool with its used lowest
// addresses allocated, as an informer cache holds them.
func benchAddresses(b *testing.B, spec v1alpha1.PoolSpec, used int) []ipamv1.IPAddress {
	b.Helper()
	s, err := spec.AddressList().Parse()
	if err != nil {
		b.Fatal(err)
	}
	out := make([]ipamv1.IPAddress, 0, used)
	a := s.Start
	for len(out) < used {
		if a.String() != spec.Gateway {
			name := fmt.Sprintf("m-%06d", len(out))
			ip := ipamv1.IPAddress{Spec: ipamv1.IPAddressSpec{
				ClaimRef: ipamv1.IPAddressClaimReference{Name: name},
				PoolRef:  ipamv1.IPPoolReference{APIGroup: v1alpha1.GroupVersion.Group, Kind: v1alpha1.PoolKind, Name: "bench"},
				Address:  a.String(), Prefix: ptr.To(int32(spec.Prefix)), Gateway: spec.Gateway,
			}}
			ip.Name, ip.Namespace = name, "default"
			ip.Labels = map[string]string{AddressLabel: addressLabel(a)}
			out = append(out, ip)
		}
		a = a.Next()
	}
	return out
}

// BenchmarkClaim measures one claim's allocation in a 90% full pool, after
// a release at a random place (the churn of machines being replaced):
//
//   - vmnetkit: what the claim reconciler does to the pool's entry, each
//     step under its mu: reserve (ipam.Pool.Allocate on the in-memory
//     pool), settle (the bookkeeping of the IPAddress it created), and the
//     free an IPAddress's deletion event makes (seen);
//   - in-cluster: the baseline (package incluster), which lists the pool's
//     IPAddresses, builds the sets and walks from the start.
//
// The API calls both make (create the IPAddress, write the claim) are not
// measured.
func BenchmarkClaim(b *testing.B) {
	for _, p := range benchPools {
		objs := benchAddresses(b, p.spec, p.used)
		b.Run(p.name+"/vmnetkit", func(b *testing.B) {
			e := readyEntry(b, p.spec, objs)
			key := poolKey{Kind: v1alpha1.PoolKind, Namespace: "default", Name: "bench"}
			owners := make([]string, len(objs))
			addrs := make([]netip.Addr, len(objs))
			for i := range objs {
				owners[i] = objs[i].Namespace + "/" + objs[i].Name
				addrs[i] = netip.MustParseAddr(objs[i].Spec.Address)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := rng.IntN(len(owners))
				e.seen(owners[k], addrs[k], false) // the IPAddress's deletion event
				owner := fmt.Sprintf("default/new-%d", i)
				res, f := e.reserve(key, owner, netip.Addr{}, time.Time{})
				if f != nil {
					b.Fatal(f.message)
				}
				a := res.addr
				e.settle(owner, a, true, a) // the create succeeded
				owners[k], addrs[k] = owner, a
			}
		})
		b.Run(p.name+"/in-cluster", func(b *testing.B) {
			cached := append([]ipamv1.IPAddress(nil), objs...)
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := rng.IntN(len(cached))
				last := len(cached) - 1
				cached[k], cached[last] = cached[last], cached[k] // the deleted IPAddress
				cached = cached[:last]
				a, err := incluster.Allocate(&p.spec, cached)
				if err != nil {
					b.Fatal(err)
				}
				ip := objs[0]
				ip.Name = fmt.Sprintf("new-%d", i)
				ip.Spec.Address = a.String()
				cached = append(cached, ip)
			}
		})
	}
}
