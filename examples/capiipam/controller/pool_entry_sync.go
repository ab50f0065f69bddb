package controller

import (
	"fmt"
	"net/netip"
	"time"

	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/ipam"
)

// resyncEvery is how often at most a pool's resync runs: it walks the
// whole pool, so it does not run on every reconcile of a pool of 100,000.
const resyncEvery = 10 * time.Second

// resyncDueLocked runs resyncLocked if the pool changed since the last
// one and that one is resyncEvery old, and reports whether it ran.
func (e *poolEntry) resyncDueLocked(now time.Time) bool {
	if !e.dirty || now.Sub(e.resynced) < resyncEvery {
		return false
	}
	e.resyncLocked()
	e.resynced, e.dirty = now, false
	return true
}

// resyncWaitLocked returns how long until a resync the pool's changes
// wait for is due, or 0 when none waits.
func (e *poolEntry) resyncWaitLocked(now time.Time) time.Duration {
	if !e.dirty || e.ipamPool == nil {
		return 0
	}
	return max(resyncEvery-now.Sub(e.resynced), time.Millisecond)
}

// resyncLocked makes the pool hold exactly what objects and pending hold
// (one owner for an address held twice) and, of the pre-allocated
// addresses, those nothing else holds, undoing any drift of the
// incremental updates, whose events and creates interleave (a create
// finishing after a rebuild, an event for an object a lost race already
// removed), and dropping the marks of addresses found locked by another.
// It costs a walk of the pool and of objects.
func (e *poolEntry) resyncLocked() {
	if e.ipamPool == nil {
		return
	}
	var stale []netip.Addr
	for a, owner := range e.ipamPool.All() {
		if e.objects[owner] != a && e.pending[owner] != a {
			stale = append(stale, a)
		}
	}
	for _, a := range stale {
		_, _ = e.ipamPool.Release(a)
	}
	e.shared = nil
	for owner, a := range e.pending {
		e.holdLocked(owner, a)
	}
	for owner, a := range e.objects {
		if e.pending[owner] != a {
			e.holdLocked(owner, a)
		}
	}
	e.placeAllLocked()
}

// restoreEntry restores a pool of spec from its IPAddresses with
// ipam.Restore, into an entry no other goroutine sees yet. It returns the
// IPAddresses the pool does not hold (out of range, an address held twice,
// an address that does not parse) as text.
func restoreEntry(spec ipam.Spec, items []ipamv1.IPAddress) (*poolEntry, []string, error) {
	snap := ipam.Snapshot{Spec: spec, Allocations: make([]ipam.Allocation, 0, len(items))}
	objects := make(map[string]netip.Addr, len(items))
	var unparsed []string
	for i := range items {
		ip := &items[i]
		owner := ip.Namespace + "/" + ip.Name
		a, err := ipam.ParseAddr(ip.Spec.Address)
		if err != nil {
			unparsed = append(unparsed, fmt.Sprintf("%s: address %q: %v", owner, ip.Spec.Address, err))
			continue
		}
		objects[owner] = a
		snap.Allocations = append(snap.Allocations, ipam.Allocation{Addr: a, Owner: owner})
	}
	pool, problems, err := ipam.Restore(snap)
	if err != nil {
		return nil, nil, err
	}
	out := 0
	for _, a := range objects {
		if pool.Check(a) != nil {
			out++
		}
	}
	texts := unparsed
	for _, p := range problems {
		texts = append(texts, p.Error())
	}
	return &poolEntry{ipamPool: pool, spec: spec, objects: objects, outOfRange: out, pending: map[string]netip.Addr{}}, texts, nil
}
