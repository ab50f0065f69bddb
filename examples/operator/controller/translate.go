package controller

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"go4.org/netipx"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// maxExcludedMarkers caps the EXCLUDED entries written to a pool's status:
// an exclusion may span far more addresses than an object can hold (a /80 of
// a /64). Markers are informative only; ParseAllocated accepts their absence.
const maxExcludedMarkers = 1024

// errSpec marks an IPPool spec that does not translate to an ipam.Spec.
var errSpec = errors.New("invalid IPPool spec")

// ipamSpec translates an IPPool's spec into the core's Spec. Its error wraps
// errSpec (bad syntax) or ipam.ErrInvalidSpec (a range the core rejects).
func ipamSpec(s v1alpha1.IPPoolSpec) (ipam.Spec, error) {
	var spec ipam.Spec
	p, err := netip.ParsePrefix(s.CIDR)
	if err != nil {
		return spec, fmt.Errorf("%w: cidr %q: %v", errSpec, s.CIDR, err)
	}
	spec.Prefix = p
	if spec.Start, err = optionalAddr("rangeStart", s.RangeStart); err != nil {
		return spec, err
	}
	if spec.End, err = optionalAddr("rangeEnd", s.RangeEnd); err != nil {
		return spec, err
	}
	for _, e := range s.Exclude {
		r, err := parseRange(e)
		if err != nil {
			return spec, err
		}
		spec.Exclude = append(spec.Exclude, r)
	}
	for _, f := range []struct{ name, value string }{{"serverIP", s.ServerIP}, {"router", s.Router}} {
		a, err := optionalAddr(f.name, f.value)
		if err != nil {
			return spec, err
		}
		// The core wants reserved addresses inside the prefix; a router
		// outside it is not ours to reserve.
		if a.IsValid() && p.Contains(a) {
			spec.Reserved = append(spec.Reserved, a)
		}
	}
	switch s.Strategy {
	case "", v1alpha1.StrategyLowest:
		spec.Strategy = ipam.Lowest
	case v1alpha1.StrategySequential:
		spec.Strategy = ipam.Sequential
	default:
		return spec, fmt.Errorf("%w: strategy %q: want %q or %q", errSpec, s.Strategy, v1alpha1.StrategyLowest, v1alpha1.StrategySequential)
	}
	if err := spec.Validate(); err != nil {
		return spec, err
	}
	return spec, nil
}

func optionalAddr(field, s string) (netip.Addr, error) {
	if s == "" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return a, fmt.Errorf("%w: %s %q: %v", errSpec, field, s, err)
	}
	return a, nil
}

// parseRange reads an exclusion: "a", "a-b" or a prefix "a/n".
func parseRange(s string) (netipx.IPRange, error) {
	var r netipx.IPRange
	var err error
	switch {
	case strings.Contains(s, "/"):
		var p netip.Prefix
		if p, err = netip.ParsePrefix(s); err == nil {
			r = netipx.RangeOfPrefix(p.Masked())
		}
	case strings.Contains(s, "-"):
		r, err = netipx.ParseIPRange(s)
	default:
		var a netip.Addr
		if a, err = netip.ParseAddr(s); err == nil {
			r = netipx.IPRangeFrom(a, a)
		}
	}
	if err == nil && !r.IsValid() {
		err = errors.New("not a valid range")
	}
	if err != nil {
		return r, fmt.Errorf("%w: exclude %q: %v", errSpec, s, err)
	}
	return r, nil
}

// allocatedMap renders a pool in the status form: every allocation as
// ip -> MAC, every reserved address of the range as RESERVED and, up to
// maxExcludedMarkers of them, the excluded addresses of the range as EXCLUDED.
func allocatedMap(p *ipam.Pool) map[string]string {
	m := make(map[string]string, p.Len()+8)
	for a, owner := range p.All() {
		m[a.String()] = owner
	}
	rng := p.Range()
	spec := p.Spec()
	for _, a := range spec.Reserved {
		if rng.Contains(a) {
			m[a.String()] = v1alpha1.AllocatedReserved
		}
	}
	n := 0
	for _, x := range spec.Exclude {
		lo, hi := maxAddr(x.From(), rng.From()), minAddr(x.To(), rng.To())
		for a := lo; a.IsValid() && a.Compare(hi) <= 0 && n < maxExcludedMarkers; a = a.Next() {
			if errors.Is(p.Check(a), ipam.ErrExcluded) {
				if _, ok := m[a.String()]; !ok {
					m[a.String()] = v1alpha1.AllocatedExcluded
					n++
				}
			}
		}
	}
	return m
}

func maxAddr(a, b netip.Addr) netip.Addr {
	if a.Less(b) {
		return b
	}
	return a
}

func minAddr(a, b netip.Addr) netip.Addr {
	if a.Less(b) {
		return a
	}
	return b
}

// restorePool builds the in-memory pool for spec from a status map. The
// problems are entries the pool could not keep (kept out, and reported in
// the CacheReady message).
func restorePool(spec ipam.Spec, allocated map[string]string) (*ipam.Pool, []ipam.Problem, error) {
	snap, problems := ipam.ParseAllocated(spec, allocated)
	p, more, err := ipam.Restore(snap)
	return p, append(problems, more...), err
}

// writeStats stores p's allocations and counts into st, keeping its
// conditions and epoch.
func writeStats(st *v1alpha1.IPPoolStatus, p *ipam.Pool) {
	st.Allocated = allocatedMap(p)
	s := p.Stats()
	st.Size, st.Used, st.Available = s.Size.String(), s.Allocated.String(), s.Free.String()
}
