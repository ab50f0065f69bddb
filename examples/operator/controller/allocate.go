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
	fn      func(s *poolSet, limit int) (allocation, bool, error) // changes the pools; reports what the NIC holds and whether it changed anything
	alloc   bool                                                  // hands out addresses (counted in vmnetkit_ippool_allocations_total)
	res     allocation
	changed bool
	err     error
	done    bool // guarded by poolEntry.mu
}

// change runs fn on the pool key as part of the next flush and returns its
// outcome. Claims reconciled at the same time share one status write.
func (w *poolWriter) change(ctx context.Context, key types.NamespacedName, alloc bool, fn func(*poolSet, int) (allocation, bool, error)) (allocation, error) {
	e := w.cache.get(key)
	if e == nil {
		return allocation{}, w.notReady(ctx, key, "not observed by this process yet")
	}
	c := &change{fn: fn, alloc: alloc}
	e.queue(c)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !c.done { // else a flush by another claim carried it out
		w.flush(ctx, key, e)
	}
	return c.res, c.err
}

// flush applies every queued change to a clone of the pool's cache and, if
// any changed it, writes the clone's allocations into the pool's status with
// the resourceVersion the cache was restored from. Only after the write
// succeeded does the clone replace the cache, so the cache never holds what
// the API server refused. On a conflict, the cache is rebuilt from the pool
// as the API server now has it and the changes run again on the fresh state:
// an address a newer status gives to another MAC is never handed out.
// The caller holds e.mu.
func (w *poolWriter) flush(ctx context.Context, key types.NamespacedName, e *poolEntry) {
	batch := e.dequeue()
	fail := func(err error) {
		for _, c := range batch {
			if c.err == nil {
				c.res, c.err = allocation{}, err
			}
		}
	}
	defer func() {
		for _, c := range batch {
			c.done = true
		}
	}()
	for attempt := 1; ; attempt++ {
		if !e.ready() {
			fail(w.notReady(ctx, key, "cache "+e.machine.State().String()))
			return
		}
		limit := poolLimit(e.obj.Spec, w.limit)
		most := limit // what this process hands out
		if e.ceiling > 0 && e.ceiling < limit {
			most = e.ceiling
		}
		next := e.pool.Clone()
		changed := false
		for _, c := range batch {
			c.res, c.changed, c.err = c.fn(next, most)
			c.changed = c.changed && c.err == nil
			changed = changed || c.changed
		}
		if !changed {
			return
		}
		upd := e.obj.DeepCopy()
		writeSetStats(&upd.Status, next)
		setCapacity(&upd.Status, next, limit, e.ceiling, upd.Generation, w.now())
		err := w.client.Status().Update(ctx, upd)
		if err == nil {
			e.obj, e.pool = upd, next
			n := 0
			for _, c := range batch {
				if c.alloc && c.changed {
					n += c.res.added
				}
			}
			countAllocations(key, n)
			observe(key, e, w.limit)
			return
		}
		if isTooLarge(err) {
			// The status cannot grow: retrying would fail the same way.
			// Until the pool is rebuilt, hand out no more addresses than
			// the status held when it last fitted (a release still writes,
			// as it makes the status smaller).
			e.ceiling = e.pool.Len()
			fail(fmt.Errorf("pool %s: the API server refuses its status with %d allocations (%v): %w", key, next.Len(), err, errCapacityLimited))
			// Say so on the pool: its current status is smaller, so this
			// write fits. If it fails, the pool reconciler tries again.
			upd := e.obj.DeepCopy()
			if setCapacity(&upd.Status, e.pool, limit, e.ceiling, upd.Generation, w.now()) {
				if err := w.client.Status().Update(ctx, upd); err == nil {
					e.obj = upd
				}
			}
			return
		}
		if !apierrors.IsConflict(err) {
			fail(fmt.Errorf("write status of pool %s: %w", key, err))
			return
		}
		if attempt == maxWriteAttempts {
			fail(fmt.Errorf("write status of pool %s: %d conflicts in a row: %w", key, attempt, err))
			return
		}
		// Another writer is active: step aside for a random moment, so two
		// processes that keep colliding fall out of step.
		time.Sleep(rand.N(time.Duration(attempt) * 2 * time.Millisecond))
		if err := w.refresh(ctx, key, e); err != nil {
			fail(err)
			return
		}
	}
}

// refresh rebuilds e from the pool as the API server has it now. A changed
// generation is left to the pool reconciler (its machine decides whether to
// rebuild); until then the claim waits.
func (w *poolWriter) refresh(ctx context.Context, key types.NamespacedName, e *poolEntry) error {
	fresh := &v1alpha1.IPPool{}
	if err := w.reader.Get(ctx, key, fresh); err != nil {
		if apierrors.IsNotFound(err) {
			e.machine, _ = e.machine.Step(cacheready.Deleted{})
			e.obj, e.pool = nil, nil
			return fmt.Errorf("pool %s: %w", key, errPoolGone)
		}
		return err
	}
	if fresh.UID != e.uid || fresh.Generation != e.obj.Generation {
		return fmt.Errorf("pool %s changed (generation %d): %w", key, fresh.Generation, errPoolNotReady)
	}
	return e.adopt(ctx, fresh)
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
