package controller

import (
	"context"
	"net/netip"
	"time"

	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// This file is the only one that takes a poolEntry's mu. Each function
// here takes it once, calls the …Locked methods that make one step, and
// lets go; none holds it across an API call but syncEntry (the CacheReady
// writes of a build, rare).

// reserve is reserveLocked under e.mu: a claim's pick.
func (e *poolEntry) reserve(key poolKey, owner string, asked netip.Addr, now time.Time) (reservation, *failure) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reserveLocked(key, owner, asked, now)
}

// settle is settleLocked under e.mu: what a claim's create left, recorded
// in one step whatever the path.
func (e *poolEntry) settle(owner string, addr netip.Addr, created bool, holds netip.Addr) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.settleLocked(owner, addr, created, holds)
}

// markForeignLock is markForeignLockLocked under e.mu. A claim calls it
// once settle has freed addr: a mark on an address still reserved for the
// claim would not take.
func (e *poolEntry) markForeignLock(addr netip.Addr, holder string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.markForeignLockLocked(addr, holder)
}

// seen records an informer event: owner's IPAddress of addr exists, or is
// gone.
func (e *poolEntry) seen(owner string, addr netip.Addr, exists bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if exists {
		e.addedLocked(owner, addr)
	} else {
		e.removedLocked(owner, addr)
	}
}

// lostTo records that owner's IPAddress of addr, deleted by commitLegacy,
// is gone and that others' IPAddresses of addr hold it, in one step.
func (e *poolEntry) lostTo(owner string, addr netip.Addr, others []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.removedLocked(owner, addr)
	for _, o := range others {
		e.addedLocked(o, addr)
	}
}

// step feeds ev to e's machine and drops the in-memory pool: the pool
// object is deleted or being deleted.
func (e *poolEntry) step(ev cacheready.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.machine, _ = e.machine.Step(ev)
	e.dropLocked()
}

// syncEntry is syncLocked under e.mu, and returns as well when the resync
// the pool's changes wait for is due (resyncWaitLocked); counts to write
// within countsDelay of the last ones are held back, and again is when
// to come back for them.
func (r *poolReconciler) syncEntry(ctx context.Context, e *poolEntry, key poolKey, obj v1alpha1.Pool) (counts v1alpha1.Pool, again time.Duration, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	counts, err = r.syncLocked(ctx, e, key, obj)
	again = e.resyncWaitLocked(r.now())
	if counts == nil || err != nil {
		return counts, again, err
	}
	// At most one counts write a countsDelay: a reconcile queued by an
	// event during the last write comes back when the delay is over.
	now := r.since()
	if wait := countsDelay - (now - e.countsWritten); e.counted && wait > 0 {
		if again <= 0 || wait < again {
			again = wait
		}
		return nil, again, nil
	}
	e.countsWritten, e.counted = now, true
	return counts, again, nil
}
