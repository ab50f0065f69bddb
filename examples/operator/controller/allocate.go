package controller

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// Consistency (why the writer is as it is).
//
// The pool's status in the API server is the source of truth; the in-memory
// pool is a cache of one resourceVersion of it. Every change is made on a
// Clone, written with that resourceVersion (optimistic concurrency), and
// swapped in only once the write succeeded. On a conflict, the pool is
// re-read from the API server (not the informer cache), rebuilt from the fresh
// status with ipam.Restore, and the change re-applied, so an address that a
// newer status gives to another MAC is never handed out, even by two
// processes that both believe they lead.

// maxWriteAttempts bounds the conflict retries of one pool status change.
const maxWriteAttempts = 16

// errPoolNotReady reports that a pool's cache is not Ready in this process
// (not observed yet, building, paused, spec changed): the claim waits.
var errPoolNotReady = errors.New("pool not ready in this process")

// errPoolGone reports that a pool does not exist (or is being deleted).
var errPoolGone = errors.New("pool not found")

// poolWriter changes pools' allocations on behalf of claims.
type poolWriter struct {
	client client.Client
	reader client.Reader
	cache  *poolCache
	now    func() time.Time
	limit  int // -max-allocations-per-pool
}

// allocate returns what mac holds in the pool key, giving it what it lacks
// (allocateNIC): an address of spec.cidr's part (want if valid, else the
// next free one) and, in a dual-stack pool, then one of the IPv6 part. A
// part that has handed out its limit gives none (errCapacityLimited). An
// error is spec.cidr's part's or the pool's; the IPv6 part's alone is
// allocation.err6.
func (w *poolWriter) allocate(ctx context.Context, key types.NamespacedName, mac string, want netip.Addr) (allocation, error) {
	return w.change(ctx, key, true, func(s *poolSet, most int) (allocation, bool, error) {
		return allocateNIC(s, key, mac, want, most)
	})
}

// release frees what mac holds in each part of the pool key, if anything.
// A pool that is gone holds nothing.
func (w *poolWriter) release(ctx context.Context, key types.NamespacedName, mac string) error {
	_, err := w.change(ctx, key, false, func(s *poolSet, _ int) (allocation, bool, error) {
		return allocation{}, releaseNIC(s, mac), nil
	})
	if errors.Is(err, errPoolGone) {
		return nil
	}
	return err
}

// change is one claim's change to a pool's allocations, queued on the
// pool's entry until a flush carries it out.
type change struct {
	fn    func(s *poolSet, limit int) (allocation, bool, error) // changes the pools; reports what the NIC holds and whether it changed anything
	alloc bool                                                  // hands out addresses (counted in vmnetkit_ippool_allocations_total)

	// Set by the flush that carries the change out, read by its claim
	// once done is closed (or by the flushing claim itself).
	res     allocation
	changed bool
	err     error

	// done is closed when the change is carried out, or when its claim
	// is handed the next flush: then lead is true (set under the entry's
	// mu before the close), and the change is carried out by that flush.
	done chan struct{}
	lead bool
}

// change runs fn on the pool key as part of a flush and returns its
// outcome. Claims reconciled at the same time share one status write: one
// claim flushes every change queued, the others wait, and one of those
// queued meanwhile flushes next.
func (w *poolWriter) change(ctx context.Context, key types.NamespacedName, alloc bool, fn func(*poolSet, int) (allocation, bool, error)) (allocation, error) {
	e, _ := w.cache.Get(key)
	if e == nil {
		return allocation{}, w.notReady(ctx, key, "not observed by this process yet")
	}
	c := &change{fn: fn, alloc: alloc, done: make(chan struct{})}
	if !e.enqueue(c) {
		<-c.done // the flush carrying c out never ends before c is done or handed over
		if !c.lead {
			return c.res, c.err
		}
	}
	w.flush(ctx, key, e)
	return c.res, c.err
}

// flushBase is what one flush attempt works from: the entry's persisted
// state, taken under its mu, and a clone of its pool for the changes.
type flushBase struct {
	obj   *v1alpha1.IPPool
	pool  *poolSet // the entry's pool, not to be changed
	next  *poolSet // a clone of pool, which the changes change
	limit int      // the pool's allocation limit
	most  int      // what this process hands out: limit, or the ceiling if lower
	// ceiling is the entry's (see poolEntry.ceiling).
	ceiling int
}

// flush applies every queued change to a clone of the pool's cache and, if
// any changed it, writes the clone's allocations into the pool's status with
// the resourceVersion the cache was restored from. Only after the write
// succeeded does the clone replace the cache, so the cache never holds what
// the API server refused. On a conflict, the cache is rebuilt from the pool
// as the API server now has it and the changes run again on the fresh state:
// an address a newer status gives to another MAC is never handed out.
//
// Only the claim a flush is handed to (change) runs it. It holds the
// entry's mu only in the entry's steps (base, wrote, refreshFrom, ...),
// never across a write, a read or a sleep: claims queue and the pool
// reconciler runs meanwhile. A write the reconciler made meanwhile makes
// this one conflict (both carry the resourceVersion they were made from).
func (w *poolWriter) flush(ctx context.Context, key types.NamespacedName, e *poolEntry) {
	batch := e.dequeue()
	defer e.handOver(batch)
	for attempt := 1; ; attempt++ {
		base, why := e.base(w.limit)
		if base == nil {
			failAll(batch, w.notReady(ctx, key, why))
			return
		}
		changed := false
		for _, c := range batch {
			c.res, c.changed, c.err = c.fn(base.next, base.most)
			c.changed = c.changed && c.err == nil
			changed = changed || c.changed
		}
		if !changed {
			return
		}
		upd := base.obj.DeepCopy()
		writeSetStats(&upd.Status, base.next)
		setCapacity(&upd.Status, base.next, base.limit, base.ceiling, upd.Generation, w.now())
		err := w.client.Status().Update(ctx, upd)
		switch {
		case err == nil:
			e.wrote(key, base, upd, base.next, w.limit)
			n := 0
			for _, c := range batch {
				if c.alloc && c.changed {
					n += c.res.added
				}
			}
			countAllocations(key, n)
			return
		case isTooLarge(err):
			w.tooLarge(ctx, key, e, base, batch, err)
			return
		case !apierrors.IsConflict(err):
			failAll(batch, fmt.Errorf("write status of pool %s: %w", key, err))
			return
		case attempt == maxWriteAttempts:
			failAll(batch, fmt.Errorf("write status of pool %s: %d conflicts in a row: %w", key, attempt, err))
			return
		}
		// Another writer is active: step aside for a random moment, so two
		// processes that keep colliding fall out of step.
		time.Sleep(rand.N(time.Duration(attempt) * 2 * time.Millisecond))
		if err := w.refresh(ctx, key, e); err != nil {
			failAll(batch, err)
			return
		}
	}
}

// failAll gives err to each change of batch that has no error of its own.
func failAll(batch []*change, err error) {
	for _, c := range batch {
		if c.err == nil {
			c.res, c.err = allocation{}, err
		}
	}
}

// tooLarge handles a status the API server refused as too large: the
// status cannot grow, and retrying would fail the same way. Until the pool
// is rebuilt, this process hands out no more addresses than the status
// held when it last fitted (a release still writes, as it makes the status
// smaller), and the pool says so: its current status is smaller, so that
// write fits (if it fails, the pool reconciler tries again).
func (w *poolWriter) tooLarge(ctx context.Context, key types.NamespacedName, e *poolEntry, base *flushBase, batch []*change, err error) {
	failAll(batch, fmt.Errorf("pool %s: the API server refuses its status with %d allocations (%v): %w", key, base.next.Len(), err, errCapacityLimited))
	if upd := e.refuseAbove(base, w.now()); upd != nil {
		if err := w.client.Status().Update(ctx, upd); err == nil {
			e.wroteStatus(base, upd)
		}
	}
}

// refresh rebuilds e from the pool as the API server has it now
// (refreshFrom); a pool that is gone is errPoolGone.
func (w *poolWriter) refresh(ctx context.Context, key types.NamespacedName, e *poolEntry) error {
	fresh := &v1alpha1.IPPool{}
	if err := w.reader.Get(ctx, key, fresh); err != nil {
		if apierrors.IsNotFound(err) {
			e.step(cacheready.Deleted{})
			return fmt.Errorf("pool %s: %w", key, errPoolGone)
		}
		return err
	}
	return e.refreshFrom(ctx, key, fresh)
}

// notReady returns errPoolGone if the pool does not exist, else errPoolNotReady.
func (w *poolWriter) notReady(ctx context.Context, key types.NamespacedName, why string) error {
	obj := &v1alpha1.IPPool{}
	err := w.client.Get(ctx, key, obj) // the informer cache is fresh enough to tell "gone" from "waiting"
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("pool %s: %w", key, errPoolGone)
	case err != nil:
		return err
	case !obj.DeletionTimestamp.IsZero():
		return fmt.Errorf("pool %s is being deleted: %w", key, errPoolGone)
	}
	return fmt.Errorf("pool %s: %s: %w", key, why, errPoolNotReady)
}
