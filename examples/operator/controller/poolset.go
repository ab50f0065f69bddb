package controller

import (
	"fmt"
	"net/netip"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// Dual stack (why a pool is a set).
//
// A pool with spec.ipv6 is cached as one poolSet of two ipam.Pools, rebuilt
// together (CacheReady covers both) and written together in one status
// write (status.allocated and status.ipv6.allocated). A NIC gets its IPv4
// address first, then its IPv6 address; when only the IPv6 part cannot give
// one, the NIC keeps its IPv4 address and the claim's Ready is False with
// reason IPv6Exhausted, IPv6CapacityLimited or IPv6AllocationFailed. The
// allocation limit applies to each part, and is half the operator's for a
// dual-stack pool (both parts share one status object).

// poolSet is the in-memory cache of one IPPool: one ipam.Pool per part.
// It is rebuilt as a whole (buildPoolSet), so CacheReady covers both
// families: it is True only once both parts are restored. Like an
// ipam.Pool it is not safe for concurrent use (poolEntry.mu guards it).
type poolSet struct {
	cidr *ipam.Pool // spec.cidr: the IPv4 part of a dual-stack pool, or the pool's only part (IPv4 or IPv6)
	ipv6 *ipam.Pool // spec.ipv6: the IPv6 part; nil for a single-stack pool
}

// Clone returns a deep copy of s.
func (s *poolSet) Clone() *poolSet {
	c := &poolSet{cidr: s.cidr.Clone()}
	if s.ipv6 != nil {
		c.ipv6 = s.ipv6.Clone()
	}
	return c
}

// Len returns the number of addresses the fuller part has handed out to
// MACs: what the pool's limit, which applies to each part, is checked
// against.
func (s *poolSet) Len() int {
	n := s.cidr.Len()
	if s.ipv6 != nil && s.ipv6.Len() > n {
		n = s.ipv6.Len()
	}
	return n
}

// buildPoolSet restores obj's in-memory pools from its spec and status:
// spec.cidr's part from status.allocated (buildPool) and, for a dual-stack
// pool, the IPv6 part from status.ipv6.allocated. A spec that does not
// validate (IPPoolSpec.Validate) is an error wrapping ipam.ErrInvalidSpec,
// and no part is built. The problems are entries of either map the pools
// could not keep.
func buildPoolSet(obj *v1alpha1.IPPool) (*poolSet, []ipam.Problem, error) {
	if !obj.Spec.DualStack() {
		p, problems, err := buildPool(obj)
		if err != nil {
			return nil, nil, err
		}
		return &poolSet{cidr: p}, problems, nil
	}
	if err := obj.Spec.Validate(); err != nil {
		return nil, nil, err
	}
	p4, problems, err := buildPool(obj)
	if err != nil {
		return nil, nil, err
	}
	spec6, _, err := obj.Spec.ParseIPv6Spec()
	if err != nil {
		return nil, nil, err
	}
	var allocated6 map[string]string
	if obj.Status.IPv6 != nil {
		allocated6 = obj.Status.IPv6.Allocated
	}
	p6, problems6, err := ipam.RestoreAllocated(spec6, allocated6)
	if err != nil {
		return nil, nil, err
	}
	return &poolSet{cidr: p4, ipv6: p6}, append(problems, problems6...), nil
}

// writeSetStats stores s's allocations and counts into st: spec.cidr's
// part in st's own fields, the IPv6 part in st.IPv6 (nil for a
// single-stack pool). It keeps st's conditions and epoch.
func writeSetStats(st *v1alpha1.IPPoolStatus, s *poolSet) {
	writeStats(st, s.cidr)
	st.IPv6 = nil
	if s.ipv6 != nil {
		fs := familyStatus(s.ipv6)
		st.IPv6 = &fs
	}
}

// allocation is what one NIC holds in a pool.
type allocation struct {
	addr  netip.Addr // from spec.cidr's part
	addr6 netip.Addr // from the IPv6 part; zero in a single-stack pool or when err6 is set
	err6  error      // why a dual-stack pool gave addr but no addr6
	added int        // addresses handed out by this call (0, 1 or 2)
}

// allocateNIC gives mac an address of each part of s, spec.cidr's first,
// keeping what it holds. want, if valid, is asked of the part of its
// family (a dual-stack pool's IPv6 part for an IPv6 address). most is the
// limit of each part. An error from spec.cidr's part is returned and the
// IPv6 part is not asked; an error of the IPv6 part alone is in err6, and
// mac keeps its address of the other part. changed reports whether s
// changed.
func allocateNIC(s *poolSet, key types.NamespacedName, mac string, want netip.Addr, most int) (res allocation, changed bool, err error) {
	want4, want6 := want, netip.Addr{}
	if s.ipv6 != nil && want.Is6() {
		want4, want6 = netip.Addr{}, want
	}
	part := ""
	if s.ipv6 != nil {
		part = "IPv4" // the pool's only part needs no name
	}
	res.addr, changed, err = take(s.cidr, key, part, mac, want4, most)
	if changed {
		res.added++
	}
	if err != nil || s.ipv6 == nil {
		return res, changed, err
	}
	var changed6 bool
	res.addr6, changed6, res.err6 = take(s.ipv6, key, "IPv6", mac, want6, most)
	if changed6 {
		res.added++
	}
	return res, changed || changed6, nil
}

// take returns the address mac holds in p, giving it one if it holds none:
// want if valid, else p's next free address. A part that has handed out
// most addresses gives none (errCapacityLimited). part names p in the
// errors of a dual-stack pool ("IPv4", "IPv6"); "" for a single-stack one.
func take(p *ipam.Pool, key types.NamespacedName, part, mac string, want netip.Addr, most int) (netip.Addr, bool, error) {
	name := "pool " + key.String()
	if part != "" {
		name = part + " part of " + name
	}
	wrap := func(err error) error {
		if part == "" || err == nil {
			return err
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if a, ok := p.AddrOf(mac); ok {
		if want.IsValid() && a != want {
			return a, false, wrap(fmt.Errorf("%s holds %s, not the requested %s: %w", mac, a, want, ipam.ErrOwnerHasAddr))
		}
		return a, false, nil
	}
	if n := p.Len(); n >= most {
		return netip.Addr{}, false, fmt.Errorf("%s has handed out %d of at most %d addresses: %w", name, n, most, errCapacityLimited)
	}
	if want.IsValid() {
		err := p.AllocateAddr(want, mac)
		return want, err == nil, wrap(err)
	}
	a, err := p.Allocate(mac)
	return a, err == nil, wrap(err)
}

// releaseNIC frees what mac holds in each part of s and reports whether s
// changed.
func releaseNIC(s *poolSet, mac string) bool {
	_, changed := s.cidr.ReleaseOwner(mac)
	if s.ipv6 != nil {
		if _, ok := s.ipv6.ReleaseOwner(mac); ok {
			changed = true
		}
	}
	return changed
}
