package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/internal/poolcache"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// poolCache holds one poolEntry per IPPool, for one epoch (one process).
type poolCache = poolcache.Cache[types.NamespacedName, poolEntry]

func newPoolCache(epoch string) *poolCache {
	return poolcache.New[types.NamespacedName](func(uid types.UID) *poolEntry {
		return &poolEntry{uid: uid, machine: cacheready.New(epoch)}
	})
}

// poolEntry is this process's view of one IPPool.
//
// Its fields are guarded by mu, the entry's mutex. The rule, as in
// capiipam: a method or function whose name ends in Locked needs its
// caller to hold mu; every other one takes mu itself, and those are all in
// pool_entry_lock.go. The pool reconciler holds mu across its writes (the
// CacheReady condition, the capacity); a claim's flush never holds it
// across an API call or a sleep (poolWriter.flush).
type poolEntry struct {
	mu  sync.Mutex
	uid types.UID // a pool re-created under the same name gets a new entry

	machine cacheready.Machine

	// obj and pool always describe the same persisted state: pool is
	// restored from obj.Status.Allocated (and obj.Status.IPv6.Allocated)
	// under obj's spec, and obj is the last version of the IPPool this
	// process read or wrote. pool is nil while there is no cache (not
	// built, dropped, paused). Neither is changed in place once set (a
	// change replaces them), so a flush may read what it took under mu
	// after letting go of mu.
	obj  *v1alpha1.IPPool
	pool *poolSet

	// problems counts the status entries the last rebuild of pool left out
	// (a metric).
	problems int

	// ceiling, when not 0, is the number of allocations (poolSet.Len) at
	// which the API server refused the pool's status as too large: this
	// process hands out no more, in either part, until the pool is rebuilt,
	// rather than retry a write that cannot succeed.
	ceiling int

	// queued holds the claims' changes the next flush carries out, in
	// order; flushing says that a claim is flushing: the changes queued
	// meanwhile wait for it to hand the flush over (poolWriter.change).
	queued   []*change
	flushing bool
}

// readyLocked reports whether claims may be served from the entry's pool:
// the machine is Ready in this process and holds a cache.
func (e *poolEntry) readyLocked() bool {
	return e.machine.State() == cacheready.StateReady && e.pool != nil && e.obj != nil
}

// dropLocked forgets the in-memory pool.
func (e *poolEntry) dropLocked() { e.obj, e.pool = nil, nil }
