package controller

import (
	"errors"
	"net/netip"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/poolcache"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// poolCache holds one poolEntry per pool object, for one epoch (one
// process).
type poolCache = poolcache.Cache[poolKey, poolEntry]

func newPoolCache(epoch string) *poolCache {
	return poolcache.New[poolKey](func(types.UID) *poolEntry {
		return &poolEntry{machine: cacheready.New(epoch)}
	})
}

// poolEntry is this process's view of one pool object.
//
// Its fields are guarded by mu, the entry's mutex (not to be confused with
// a VMNetIPAddressLock, the address lock of address_lock.go). The rule: a
// method whose name ends in Locked needs its caller to hold mu; every other
// method takes mu itself, and those are all in pool_entry_lock.go. mu is
// held across no API call but the CacheReady writes of the pool reconciler
// (rare: a build, a restart, a spec change).
type poolEntry struct {
	mu sync.Mutex

	machine cacheready.Machine

	// ipamPool is the in-memory pool, nil while there is no cache (not
	// built, dropped, paused). It holds every IPAddress of the pool the
	// informer has shown, every address this process is creating, and the
	// addresses another process was found to hold.
	ipamPool *ipam.Pool
	spec     ipam.Spec // what ipamPool was built from
	gen      int64     // the pool object's generation ipamPool was built for

	// objects is the address of every IPAddress of the pool, by owner
	// (namespace/name), while ipamPool is not nil; some may be outside the
	// pool's range or held twice.
	objects map[string]netip.Addr

	// outOfRange counts the objects whose address ipamPool does not hand
	// out (Check fails), kept with objects so that the counts cost no walk.
	outOfRange int

	// resynced is when resync last ran (or the pool was built); dirty
	// says whether an event or a create changed the pool since.
	resynced time.Time
	dirty    bool

	// countsWritten is when this process last wrote the pool's counts,
	// by its monotonic clock (poolReconciler.since); counted says it did.
	countsWritten time.Duration
	counted       bool

	// pending is the address of every IPAddress this process is creating,
	// by owner, between reserve and settle.
	pending map[string]netip.Addr

	// shared lists, by address, the owners of IPAddresses whose address
	// another owner holds in the pool (a split brain's loser not deleted
	// yet): when that one goes, the next takes the address over.
	shared map[netip.Addr][]string

	// pre is the address spec.preAllocations gives each claim (by
	// namespace/name), preOf its inverse, source the spec they were built
	// from with ipamPool (pool_entry_pre.go).
	pre    map[string]netip.Addr
	preOf  map[netip.Addr]string
	source v1alpha1.PoolSpec
}

// readyLocked reports whether claims may be served from the entry's pool.
func (e *poolEntry) readyLocked() bool {
	return e.machine.State() == cacheready.StateReady && e.ipamPool != nil
}

// dropLocked forgets the in-memory pool.
func (e *poolEntry) dropLocked() { e.ipamPool, e.objects = nil, nil }

// addedLocked records that owner's IPAddress holds addr.
func (e *poolEntry) addedLocked(owner string, addr netip.Addr) {
	if e.ipamPool == nil {
		return
	}
	old, ok := e.objects[owner]
	if ok && old != addr {
		e.removedLocked(owner, old)
	}
	if !ok || old != addr {
		if e.ipamPool.Check(addr) != nil {
			e.outOfRange++
		}
	}
	e.objects[owner] = addr
	e.dirty = true
	e.holdLocked(owner, addr)
}

// removedLocked records that owner's IPAddress of addr is gone.
func (e *poolEntry) removedLocked(owner string, addr netip.Addr) {
	if e.ipamPool == nil {
		return
	}
	if a, ok := e.objects[owner]; ok && a == addr {
		delete(e.objects, owner)
		if e.ipamPool.Check(addr) != nil {
			e.outOfRange--
		}
	}
	e.dirty = true
	if others := slices.DeleteFunc(e.shared[addr], func(o string) bool { return o == owner }); len(others) > 0 {
		e.shared[addr] = others
	} else {
		delete(e.shared, addr)
	}
	e.freeLocked(owner, addr)
}

// foreignLockOwner is the owner under which the pool marks addr, found
// locked by holder's address lock, until holder's IPAddress of addr shows
// or a resync. It names the address too: a holder may have two address
// locks for a moment (two processes serving its claim), and a pool owner
// holds one address.
func foreignLockOwner(holder string, addr netip.Addr) string {
	return foreignLockPrefix + holder + "@" + addr.String()
}

// foreignLockPrefix starts every foreignLockOwner.
const foreignLockPrefix = "lock:"

// markForeignLockLocked marks addr taken in the pool by the address lock
// of holder (an IPAddress's namespace/name) that this process found but
// whose IPAddress it has not seen, so that claims pick other addresses
// until the next resync drops the mark or holder's IPAddress shows
// (holdLocked). An address held meanwhile (by an IPAddress, or reserved
// for a claim) is left as it is; a pre-allocated one is marked too.
func (e *poolEntry) markForeignLockLocked(addr netip.Addr, holder string) {
	e.dirty = true // a resync drops the mark
	if e.ipamPool != nil {
		_ = e.takeLocked(foreignLockOwner(holder, addr), addr)
	}
}

// holdLocked allocates addr to owner in the pool, taking it from a
// placeholder of a pre-allocation. An address outside the range is left
// out: it cannot be handed out anyway. An address held by another owner
// is noted in shared.
func (e *poolEntry) holdLocked(owner string, addr netip.Addr) {
	err := e.takeLocked(owner, addr)
	if held, ok := e.ipamPool.Lookup(addr); errors.Is(err, ipam.ErrInUse) && ok && held == foreignLockOwner(owner, addr) {
		// The address lock found for owner: its IPAddress now shows.
		_, _ = e.ipamPool.Release(addr)
		err = e.ipamPool.AllocateAddr(addr, owner)
	}
	if errors.Is(err, ipam.ErrInUse) && !slices.Contains(e.shared[addr], owner) {
		if e.shared == nil {
			e.shared = map[netip.Addr][]string{}
		}
		e.shared[addr] = append(e.shared[addr], owner)
	}
}

// freeLocked frees addr in the pool if owner holds it (only in memory:
// the IPAddress's release is releaser's). When another IPAddress names
// the same address, the pool keeps it taken for that one; a pre-allocated
// address is held for its claim again.
func (e *poolEntry) freeLocked(owner string, addr netip.Addr) {
	if e.ipamPool == nil {
		return
	}
	if held, ok := e.ipamPool.Lookup(addr); !ok || held != owner {
		return
	}
	_, _ = e.ipamPool.Release(addr)
	if others := e.shared[addr]; len(others) > 0 {
		delete(e.shared, addr)
		for _, o := range others {
			e.holdLocked(o, addr)
		}
	}
	e.placeLocked(addr)
}
