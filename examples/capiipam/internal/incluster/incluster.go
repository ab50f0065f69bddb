// Package incluster is the baseline of capiipam's benchmarks: the
// allocation algorithm of the Cluster API in-cluster IPAM provider,
// written again from its description (not imported). It is test
// machinery: no controller uses it.
package incluster

import (
	"errors"
	"net/netip"
	"strings"

	"go4.org/netipx"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// Allocate is the in-cluster provider's pick of an address for one claim
// of the pool spec, cached being the pool's IPAddresses. For each claim it takes
// every IPAddress of the pool (the informer cache's List copies each one),
// builds the set of addresses in use, builds the pool's set from its spec,
// and walks the pool's ranges from the start to the first address not in
// use.
func Allocate(spec *v1alpha1.PoolSpec, cached []ipamv1.IPAddress) (netip.Addr, error) {
	inUse := make([]ipamv1.IPAddress, len(cached))
	for i := range cached {
		cached[i].DeepCopyInto(&inUse[i]) // what the cached client's List does
	}
	var used netipx.IPSetBuilder
	for _, ip := range inUse {
		if a, err := netip.ParseAddr(ip.Spec.Address); err == nil {
			used.Add(a)
		}
	}
	if spec.Gateway != "" {
		if gw, err := netip.ParseAddr(spec.Gateway); err == nil {
			used.Add(gw)
		}
	}
	usedSet, err := used.IPSet()
	if err != nil {
		return netip.Addr{}, err
	}
	free, err := poolSet(spec)
	if err != nil {
		return netip.Addr{}, err
	}
	for _, r := range free.Ranges() {
		for a := r.From(); ; a = a.Next() {
			if !usedSet.Contains(a) {
				return a, nil
			}
			if a == r.To() {
				break
			}
		}
	}
	return netip.Addr{}, errors.New("no address available")
}

// poolSet is the set of addresses the in-cluster provider hands
// out for spec: the listed ones, less the excluded ones, the subnet's
// first (and for IPv4 last) address unless allocateReservedIPAddresses,
// and the gateway.
func poolSet(spec *v1alpha1.PoolSpec) (*netipx.IPSet, error) {
	var b netipx.IPSetBuilder
	add := func(s string, remove bool) error {
		var r netipx.IPRange
		switch {
		case strings.Contains(s, "-"):
			var err error
			if r, err = netipx.ParseIPRange(s); err != nil {
				return err
			}
		case strings.Contains(s, "/"):
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return err
			}
			r = netipx.RangeOfPrefix(p)
		default:
			a, err := netip.ParseAddr(s)
			if err != nil {
				return err
			}
			r = netipx.IPRangeFrom(a, a)
		}
		if remove {
			b.RemoveRange(r)
		} else {
			b.AddRange(r)
		}
		return nil
	}
	for _, s := range spec.Addresses {
		if err := add(s, false); err != nil {
			return nil, err
		}
	}
	listed, err := b.IPSet()
	if err != nil {
		return nil, err
	}
	for _, s := range spec.ExcludedAddresses {
		if err := add(s, true); err != nil {
			return nil, err
		}
	}
	if !spec.AllocateReservedIPAddresses && len(listed.Ranges()) > 0 {
		subnet := netipx.RangeOfPrefix(netip.PrefixFrom(listed.Ranges()[0].From(), spec.Prefix))
		b.Remove(subnet.From())
		if subnet.From().Is4() {
			b.Remove(subnet.To())
		}
	}
	if spec.Gateway != "" {
		if gw, err := netip.ParseAddr(spec.Gateway); err == nil {
			b.Remove(gw)
		}
	}
	return b.IPSet()
}
