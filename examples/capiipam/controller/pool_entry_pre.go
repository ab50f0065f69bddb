package controller

import (
	"net/netip"
	"strings"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// This file is a poolEntry's pre-allocations (spec.preAllocations).
//
// A pre-allocated address is held in the pool under a placeholder owner of
// its claim (placeholderOwner) whenever nothing else holds it, from the
// build on, so Allocate never hands it out. Anything the pool holds for
// real takes it over: an IPAddress or a create of it (the IPAddresses are
// the truth, whatever the spec says), or an address lock found for
// another (markForeignLockLocked); once that lets go of it (freeLocked,
// resyncLocked), the placeholder holds it again. The claim it is
// pre-allocated to takes it from its placeholder (reserveAskedLocked, in
// pool_entry_reserve.go).

// placeholderPrefix starts the pool owner of a pre-allocated address held
// for its claim: no IPAddress's namespace/name and no foreignLockOwner
// starts so.
const placeholderPrefix = "pre:"

// placeholderOwner is the pool owner that holds claim's (namespace/name)
// pre-allocated address for it.
func placeholderOwner(claim string) string { return placeholderPrefix + claim }

// setPreAllocationsLocked records pre, the address pre-allocated to each
// claim (namespace/name), and source, the pool spec they come from (for
// the text of a failure), and holds each address that nothing holds yet
// for its claim.
func (e *poolEntry) setPreAllocationsLocked(pre map[string]netip.Addr, source v1alpha1.PoolSpec) {
	e.pre, e.source = pre, source
	e.preOf = make(map[netip.Addr]string, len(pre))
	for c, a := range pre {
		e.preOf[a] = c
	}
	e.placeAllLocked()
}

// placeAllLocked is placeLocked of every pre-allocated address.
func (e *poolEntry) placeAllLocked() {
	for a := range e.preOf {
		e.placeLocked(a)
	}
}

// placeLocked holds addr for the claim it is pre-allocated to, if it is
// one and nothing holds it.
func (e *poolEntry) placeLocked(addr netip.Addr) {
	c, ok := e.preOf[addr]
	if !ok || e.ipamPool == nil {
		return
	}
	if _, held := e.ipamPool.Lookup(addr); !held {
		_ = e.ipamPool.AllocateAddr(addr, placeholderOwner(c))
	}
}

// takeLocked allocates addr to owner, taking it from the placeholder that
// holds it if one does; when owner cannot have it, the placeholder keeps
// it.
func (e *poolEntry) takeLocked(owner string, addr netip.Addr) error {
	if held, ok := e.ipamPool.Lookup(addr); ok && strings.HasPrefix(held, placeholderPrefix) && held != owner {
		_, _ = e.ipamPool.Release(addr)
	}
	err := e.ipamPool.AllocateAddr(addr, owner)
	if err != nil {
		e.placeLocked(addr)
	}
	return err
}
