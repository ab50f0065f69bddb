package agent

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// version6 is the DHCPv6 part of one load: the lease table of the pool's
// IPv6 part (spec.ipv6, status.ipv6.allocated), built and swapped with
// the DHCPv4 table as one version, so that a pool change reaches both
// families at once.
type version6 struct {
	store   *leasestore.Store
	prefix  netip.Prefix
	options *leasestore.Options
}

// build6 builds the DHCPv6 table of p: nil when p has no IPv6 part. An
// IPv6 part that cannot describe its pool is an error (the load is
// refused, as for the IPv4 part); bad entries and options are problems.
func build6(p *poolsource.Pool) (*version6, []error, error) {
	spec, opts, allocated, ok, problems, err := p.Config6()
	if !ok || err != nil {
		return nil, nil, err
	}
	snap, ipamProblems := ipam.ParseAllocated(spec, allocated)
	for _, pr := range ipamProblems {
		problems = append(problems, fmt.Errorf("ipv6: %w", pr))
	}
	store, storeProblems := leasestore.Build(snap, opts)
	for _, pr := range storeProblems {
		if errors.Is(pr, ipam.ErrInvalidSpec) {
			return nil, nil, fmt.Errorf("agent: pool %q: spec.ipv6: %w", p.Name(), pr.Err)
		}
		problems = append(problems, fmt.Errorf("ipv6: %w", pr))
	}
	return &version6{store: store, prefix: spec.Prefix, options: store.Options()}, problems, nil
}

// store6 is v's DHCPv6 table, nil for none.
func (v *version) store6() *leasestore.Store {
	if v == nil || v.v6 == nil {
		return nil
	}
	return v.v6.store
}

// Table6 returns the DHCPv6 lease table being served, nil before the first
// load or for a pool without an IPv6 part.
func (a *Agent) Table6() *leasestore.Store { return a.table.Load().store6() }
