package poolsource

import (
	"fmt"

	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// FamilyStatus is the allocation state of one address family of a
// dual-stack pool, as the operator writes status.ipv6: each address to
// the MAC that holds it, or to EXCLUDED or RESERVED. Of the operator's
// IPPoolFamilyStatus only Allocated is read.
type FamilyStatus struct {
	Allocated map[string]string `json:"allocated,omitempty"`
}

// Config6 converts the pool's IPv6 part (spec.ipv6) into the ipam.Spec and
// leasestore.Options the DHCPv6 lease table is built from, and returns
// status.ipv6.allocated beside them; ok is false for a pool without an
// IPv6 part. The spec is the operator's own translation
// (IPPoolSpec.ParseIPv6Spec), so the agent serves the addresses the
// operator allocated by the same rules. A spec.ipv6 that cannot describe
// the part is an error wrapping ErrInvalidPool (each bad field named as
// the IPPool does: ipv6.cidr, ipv6.exclude[2]); a bad option (ipv6.dns[1],
// ipv6.domainSearch[0], a lifetime) is left out and reported in problems,
// as Config does for the IPv4 part.
func (p *Pool) Config6() (spec ipam.Spec, opts leasestore.Options, allocated map[string]string, ok bool, problems []error, err error) {
	spec, ok, err = p.Spec.ParseIPv6Spec()
	if !ok {
		return ipam.Spec{}, leasestore.Options{}, nil, false, nil, nil
	}
	if err != nil {
		return ipam.Spec{}, leasestore.Options{}, nil, true, nil, fmt.Errorf("agent: pool %q: %w: %w", p.Name(), err, ErrInvalidPool)
	}
	o, oerr := p.Spec.IPv6.ParseOptions()
	if oerr != nil {
		for _, e := range unjoin(oerr) {
			problems = append(problems, fmt.Errorf("agent: pool %q: spec.%w: %w", p.Name(), e, ErrInvalidPool))
		}
	}
	opts = leasestore.Options{DNS: o.DNS, DomainSearch: o.DomainSearch,
		PreferredLifetime: o.PreferredLifetime, ValidLifetime: o.ValidLifetime}
	if p.Status.IPv6 != nil {
		allocated = p.Status.IPv6.Allocated
	}
	return spec, opts, allocated, true, problems, nil
}

// unjoin is the errors an errors.Join made, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
