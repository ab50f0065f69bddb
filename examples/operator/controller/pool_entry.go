package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// poolEntry is this process's view of one IPPool. Its fields are guarded by
// mu, which is held across the API writes that change them, so the pool
// reconciler and the claim reconciler never interleave on one pool.
type poolEntry struct {
	mu  sync.Mutex
	uid types.UID // a pool re-created under the same name gets a new entry

	machine cacheready.Machine

	// obj and pool always describe the same persisted state: pool is
	// restored from obj.Status.Allocated (and obj.Status.IPv6.Allocated)
	// under obj's spec, and obj is the
	// last version of the IPPool this process read or wrote. pool is nil
	// while there is no cache (not built, dropped, paused).
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

	qmu    sync.Mutex // guards queued, which is filled without holding mu
	queued []*change
}

// queue adds c to the changes the next flush carries out.
func (e *poolEntry) queue(c *change) {
	e.qmu.Lock()
	e.queued = append(e.queued, c)
	e.qmu.Unlock()
}

// dequeue takes every queued change.
func (e *poolEntry) dequeue() []*change {
	e.qmu.Lock()
	defer e.qmu.Unlock()
	b := e.queued
	e.queued = nil
	return b
}

// ready reports whether claims may be served from the entry's pool: the
// machine is Ready in this process and holds a cache.
func (e *poolEntry) ready() bool {
	return e.machine.State() == cacheready.StateReady && e.pool != nil && e.obj != nil
}

// poolCache holds one poolEntry per IPPool, for one epoch (one process).
type poolCache struct {
	epoch string

	mu      sync.Mutex
	entries map[types.NamespacedName]*poolEntry
}

func newPoolCache(epoch string) *poolCache {
	return &poolCache{epoch: epoch, entries: make(map[types.NamespacedName]*poolEntry)}
}

// get returns the entry for key, or nil.
func (c *poolCache) get(key types.NamespacedName) *poolEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[key]
}

// entry returns the entry for key and uid, replacing one left by an earlier
// pool of the same name with a fresh machine.
func (c *poolCache) entry(key types.NamespacedName, uid types.UID) *poolEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	if e == nil || e.uid != uid {
		e = &poolEntry{uid: uid, machine: cacheready.New(c.epoch)}
		c.entries[key] = e
	}
	return e
}

// remove forgets key's entry and returns it, or nil.
func (c *poolCache) remove(key types.NamespacedName) *poolEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	delete(c.entries, key)
	return e
}
