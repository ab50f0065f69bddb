package controller

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// This file is the only one that takes a poolEntry's mu. Each function
// here takes it once and lets go before it returns. Only syncEntry (the
// pool reconciler's CacheReady and capacity writes) holds it across an API
// call; the flush's steps never do.

// step feeds ev to e's machine and drops the in-memory pool: the IPPool
// is gone.
func (e *poolEntry) step(ev cacheready.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.machine, _ = e.machine.Step(ev)
	e.dropLocked()
}

// syncEntry is syncLocked under e.mu, with the pool's metrics and one log
// line (-v 1) after it.
func (r *poolReconciler) syncEntry(ctx context.Context, key types.NamespacedName, e *poolEntry, obj *v1alpha1.IPPool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	defer observeLocked(key, e, r.limit)
	defer func() { // one line per reconcile at -v 1
		log.FromContext(ctx).V(1).Info("pool reconciled", "cache", e.machine.State().String(), "used", obj.Status.Used)
	}()
	return r.syncLocked(ctx, e, obj)
}

// enqueue queues c for a flush and reports whether c's claim is to flush
// (no flush runs): then c is marked lead.
func (e *poolEntry) enqueue(c *change) (lead bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.queued = append(e.queued, c)
	if e.flushing {
		return false
	}
	e.flushing, c.lead = true, true
	return true
}

// dequeue takes every queued change.
func (e *poolEntry) dequeue() []*change {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.queued
	e.queued = nil
	return b
}

// handOver ends a flush of batch: each change's claim learns its outcome
// (but the flushing claim's own, which it reads itself), and the first
// change queued meanwhile, if any, is handed the next flush.
func (e *poolEntry) handOver(batch []*change) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range batch {
		if !c.lead {
			close(c.done)
		}
	}
	if len(e.queued) == 0 {
		e.flushing = false
		return
	}
	next := e.queued[0]
	next.lead = true
	close(next.done)
}

// base returns what one flush attempt works from, or nil and why the
// entry cannot serve claims.
func (e *poolEntry) base(operatorLimit int) (*flushBase, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.readyLocked() {
		return nil, "cache " + e.machine.State().String()
	}
	limit := poolLimit(e.obj.Spec, operatorLimit)
	most := limit // what this process hands out
	if e.ceiling > 0 && e.ceiling < limit {
		most = e.ceiling
	}
	return &flushBase{obj: e.obj, pool: e.pool, next: e.pool.Clone(), limit: limit, most: most, ceiling: e.ceiling}, ""
}

// wrote records that the API server took upd, written from base with
// next's allocations: they become the entry's, unless the entry moved on
// meanwhile (the pool reconciler read that write back already, dropped or
// rebuilt the pool), and the pool's metrics follow.
func (e *poolEntry) wrote(key types.NamespacedName, base *flushBase, upd *v1alpha1.IPPool, next *poolSet, operatorLimit int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.readyLocked() && e.obj.ResourceVersion == base.obj.ResourceVersion {
		e.obj, e.pool = upd, next
	}
	observeLocked(key, e, operatorLimit)
}

// refuseAbove records that the API server refused a status larger than
// base's (ceiling), and returns the entry's status with its
// CapacityLimited condition saying so, for the caller to write, or nil
// when there is nothing to write (the condition says so already, or the
// entry moved on since base).
func (e *poolEntry) refuseAbove(base *flushBase, now time.Time) *v1alpha1.IPPool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ceiling = base.pool.Len()
	if !e.readyLocked() || e.obj.ResourceVersion != base.obj.ResourceVersion {
		return nil
	}
	upd := e.obj.DeepCopy()
	if !setCapacity(&upd.Status, e.pool, base.limit, e.ceiling, upd.Generation, now) {
		return nil
	}
	return upd
}

// wroteStatus records that the API server took upd, a status written from
// base with the entry's allocations unchanged.
func (e *poolEntry) wroteStatus(base *flushBase, upd *v1alpha1.IPPool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.readyLocked() && e.obj.ResourceVersion == base.obj.ResourceVersion {
		e.obj = upd
	}
}

// refreshFrom rebuilds e from fresh, the IPPool as the API server has it
// now. A changed generation is left to the pool reconciler (its machine
// decides whether to rebuild); until then the claim waits. An entry no
// longer ready is left as it is: the next flush attempt says so.
func (e *poolEntry) refreshFrom(ctx context.Context, key types.NamespacedName, fresh *v1alpha1.IPPool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.readyLocked() {
		return nil
	}
	if fresh.UID != e.uid || fresh.Generation != e.obj.Generation {
		return fmt.Errorf("pool %s changed (generation %d): %w", key, fresh.Generation, errPoolNotReady)
	}
	return e.adoptLocked(ctx, fresh)
}
