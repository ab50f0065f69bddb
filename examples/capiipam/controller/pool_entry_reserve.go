package controller

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// This file is a claim's reservation in a poolEntry, from reserveLocked
// to settleLocked: any free address, or the one the claim asks for (the
// address spec.preAllocations gives it, else its
// v1alpha1.AddressAnnotation's), which it gets or none.

// reservation is an address reserveLocked reserved for a claim.
type reservation struct {
	addr   netip.Addr
	prefix int // the pool's
	// source says where the claim asks for addr (wantLocked), which it
	// gets or none; "" for any address.
	source string
}

// reserveLocked allocates an address for owner from the pool and records
// it as pending until settleLocked: the one pre-allocated to owner's
// claim, else asked (its annotation's) if valid, else any free one. It
// returns the reservation, or the failure to tell the claim (nothing then
// is reserved). A pool found exhausted is resynced first if one is due
// (resyncDueLocked), so that the marks of address locks found
// (markForeignLockLocked) do not outlive their locks when nothing else
// changes the pool: a lock still there is found again.
func (e *poolEntry) reserveLocked(key poolKey, owner string, asked netip.Addr, now time.Time) (reservation, *failure) {
	if !e.readyLocked() {
		reason := "not built"
		if c, ok := e.machine.Condition(); ok {
			reason = c.Reason + ": " + c.Message
		}
		return reservation{}, &failure{ReasonPoolNotReady, fmt.Sprintf("%s: cache not ready in this process (%s)", key, reason)}
	}
	want, source, f := e.wantLocked(key, owner, asked)
	if f != nil {
		return reservation{}, f
	}
	if want.IsValid() {
		if f := e.reserveAskedLocked(key, owner, want, source, now); f != nil {
			return reservation{}, f
		}
		e.pending[owner] = want
		return reservation{addr: want, prefix: e.spec.Prefix.Bits(), source: source}, nil
	}
	addr, err := e.ipamPool.Allocate(owner)
	if errors.Is(err, ipam.ErrExhausted) && e.resyncDueLocked(now) {
		addr, err = e.ipamPool.Allocate(owner)
	}
	switch {
	case errors.Is(err, ipam.ErrExhausted):
		return reservation{}, &failure{ReasonPoolExhausted, fmt.Sprintf("%s: no free address", key)}
	case err != nil:
		return reservation{}, &failure{ReasonAllocationFailed, err.Error()}
	}
	e.pending[owner] = addr
	return reservation{addr: addr, prefix: e.spec.Prefix.Bits()}, nil
}

// settleLocked ends the create of owner's IPAddress for addr, which
// reserveLocked returned: addr is no longer pending; unless an IPAddress
// of addr was created, addr is freed; and the pool records that owner's
// IPAddress holds holds (addr when created, the address of the IPAddress
// found in its place, or the zero Addr for none).
func (e *poolEntry) settleLocked(owner string, addr netip.Addr, created bool, holds netip.Addr) {
	if e.pending[owner] == addr {
		delete(e.pending, owner)
	}
	e.dirty = true
	if !created {
		e.freeLocked(owner, addr)
	}
	switch a, ok := e.objects[owner]; {
	case holds.IsValid():
		e.addedLocked(owner, holds)
	case ok:
		// The informer showed owner's IPAddress (another process's) while
		// addr was pending: the pool could not hold it for owner then.
		e.holdLocked(owner, a)
	}
}

// wantLocked returns the address owner's claim must get, asked being the
// one its annotation asks for (the zero Addr for none), and where it is
// asked for: the address pre-allocated to it, else asked. A claim whose
// annotation and pre-allocation disagree is not served.
func (e *poolEntry) wantLocked(key poolKey, owner string, asked netip.Addr) (want netip.Addr, source string, f *failure) {
	pre, ok := e.pre[owner]
	switch {
	case !ok && asked.IsValid():
		return asked, "annotation " + v1alpha1.AddressAnnotation, nil
	case !ok:
		return netip.Addr{}, "", nil
	case asked.IsValid() && asked != pre:
		return netip.Addr{}, "", &failure{ReasonAddressConflict, fmt.Sprintf(
			"annotation %s asks for %s, but spec.preAllocations of %s gives this claim %s: change or remove one of them",
			v1alpha1.AddressAnnotation, asked, key, pre)}
	}
	return pre, "spec.preAllocations", nil
}

// reserveAskedLocked allocates want, the address owner's claim must get
// (wantLocked says where it is asked for: source), to owner, or returns
// why it cannot: the pool does not hand want out, or another holds it (an
// IPAddress, a create, an address lock found, a pre-allocation). An
// address found locked by another is tried again after a resync
// (resyncDueLocked), as when the pool is exhausted.
func (e *poolEntry) reserveAskedLocked(key poolKey, owner string, want netip.Addr, source string, now time.Time) *failure {
	if e.ipamPool.Check(want) != nil {
		return e.unavailableLocked(key, want, source)
	}
	held, ok := e.ipamPool.Lookup(want)
	if ok && strings.HasPrefix(held, foreignLockPrefix) && e.resyncDueLocked(now) {
		held, ok = e.ipamPool.Lookup(want)
	}
	if ok && held != owner && held != placeholderOwner(owner) {
		return &failure{ReasonAddressInUse, inUseMessage(key, want, source, held)}
	}
	if err := e.takeLocked(owner, want); err != nil {
		return &failure{ReasonAllocationFailed, err.Error()}
	}
	return nil
}

// unavailableLocked is the failure of a claim that must get want (asked
// for by source), which the pool does not hand out.
func (e *poolEntry) unavailableLocked(key poolKey, want netip.Addr, source string) *failure {
	var ae *v1alpha1.AddressError
	if !errors.As(e.source.CheckAddress(want), &ae) {
		// The spec as built and its Spec disagree: say what the pool says.
		return &failure{ReasonAllocationFailed, fmt.Sprintf("%s asks %s for %s: %v", source, key, want, e.ipamPool.Check(want))}
	}
	reason := ReasonAddressNotInPool
	if ae.Listed {
		reason = ReasonAddressExcluded
	}
	return &failure{reason, fmt.Sprintf("%s asks %s for %s, which %s", source, key, want, ae.Why)}
}

// inUseMessage is the message of a claim that must get want (asked for by
// source), which the pool owner held holds.
func inUseMessage(key poolKey, want netip.Addr, source, held string) string {
	which := "IPAddress " + held + " holds; waiting for its release"
	if c, ok := strings.CutPrefix(held, placeholderPrefix); ok {
		which = "spec.preAllocations gives claim " + c
	} else if h, ok := strings.CutPrefix(held, foreignLockPrefix); ok {
		h, _, _ = strings.Cut(h, "@")
		which = "is locked for IPAddress " + h + "; waiting for its release"
	}
	return fmt.Sprintf("%s asks %s for %s, which %s", source, key, want, which)
}
