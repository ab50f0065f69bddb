package controller

import (
	"errors"
	"net/netip"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// poolKey names a pool object: Namespace is empty for a GlobalVMNetIPPool.
type poolKey struct {
	Kind      string
	Namespace string
	Name      string
}

// poolEntry is this process's view of one pool object. Its fields are
// guarded by mu, which is held across no API call but the CacheReady
// writes (rare: a build, a restart, a spec change).
type poolEntry struct {
	mu  sync.Mutex
	uid types.UID // a pool re-created under the same name gets a new entry

	machine cacheready.Machine

	// pool is the in-memory pool, nil while there is no cache (not built,
	// dropped, paused). It holds every IPAddress of the pool the informer
	// has shown, every address this process is creating, and the
	// addresses another process was found to hold.
	pool *ipam.Pool
	spec ipam.Spec // what pool was built from
	gen  int64     // the pool object's generation pool was built for

	// objects is the address of every IPAddress of the pool, by owner
	// (namespace/name), while pool is not nil; some may be outside the
	// pool's range or held twice.
	objects map[string]netip.Addr

	// outOfRange counts the objects whose address pool does not hand out
	// (pool.Check fails), kept with objects so that the counts cost no walk.
	outOfRange int

	// resynced is when resync last ran (or the pool was built); dirty
	// says whether an event or a create changed the pool since.
	resynced time.Time
	dirty    bool

	// pending is the address of every IPAddress this process is creating,
	// by owner, between Allocate and the end of the create.
	pending map[string]netip.Addr

	// shared lists, by address, the owners of IPAddresses whose address
	// another owner holds in the pool (a split brain's loser not deleted
	// yet): when that one goes, the next takes the address over.
	shared map[netip.Addr][]string
}

// resyncEvery is how often at most a pool's resync runs: it walks the
// whole pool, so it does not run on every reconcile of a pool of 100,000.
const resyncEvery = 10 * time.Second

// resyncDue runs resync if the pool changed since the last one and that
// one is resyncEvery old, and reports whether it ran.
func (e *poolEntry) resyncDue(now time.Time) bool {
	if !e.dirty || now.Sub(e.resynced) < resyncEvery {
		return false
	}
	e.resync()
	e.resynced, e.dirty = now, false
	return true
}

// resyncWait returns how long until a resync the pool's changes wait for
// is due, or 0 when none waits.
func (e *poolEntry) resyncWait(now time.Time) time.Duration {
	if !e.dirty || e.pool == nil {
		return 0
	}
	return max(resyncEvery-now.Sub(e.resynced), time.Millisecond)
}

// resync makes the pool hold exactly what objects and pending hold (one
// owner for an address held twice), undoing any drift of the incremental
// updates, whose events and creates interleave (a create finishing after
// a rebuild, an event for an object a lost race already removed), and
// dropping the marks of addresses found locked by another. It costs a walk
// of the pool and of objects.
func (e *poolEntry) resync() {
	if e.pool == nil {
		return
	}
	var stale []netip.Addr
	for a, owner := range e.pool.All() {
		if e.objects[owner] != a && e.pending[owner] != a {
			stale = append(stale, a)
		}
	}
	for _, a := range stale {
		_, _ = e.pool.Release(a)
	}
	e.shared = nil
	for owner, a := range e.pending {
		e.hold(owner, a)
	}
	for owner, a := range e.objects {
		if e.pending[owner] != a {
			e.hold(owner, a)
		}
	}
}

// ready reports whether claims may be served from the entry's pool.
func (e *poolEntry) ready() bool {
	return e.machine.State() == cacheready.StateReady && e.pool != nil
}

// added records that owner's IPAddress holds addr.
func (e *poolEntry) added(owner string, addr netip.Addr) {
	if e.pool == nil {
		return
	}
	old, ok := e.objects[owner]
	if ok && old != addr {
		e.removed(owner, old)
	}
	if !ok || old != addr {
		if e.pool.Check(addr) != nil {
			e.outOfRange++
		}
	}
	e.objects[owner] = addr
	e.dirty = true
	e.hold(owner, addr)
}

// lockMark is the owner under which the pool marks addr, found locked by
// holder's lock, until holder's IPAddress of addr shows or a resync. It
// names the address too: a holder may have two locks for a moment (two
// processes serving its claim), and a pool owner holds one address.
func lockMark(holder string, addr netip.Addr) string { return "lock:" + holder + "@" + addr.String() }

// markLocked marks addr taken in the pool by the lock of holder (an
// IPAddress's namespace/name) that this process found but whose IPAddress
// it has not seen, so that claims pick other addresses until the next
// resync drops the mark or holder's IPAddress shows (hold). An address
// held meanwhile (by an IPAddress, or reserved for a claim) is left as it
// is.
func (e *poolEntry) markLocked(addr netip.Addr, holder string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dirty = true // a resync drops the mark
	if e.pool != nil {
		_ = e.pool.AllocateAddr(addr, lockMark(holder, addr))
	}
}

// hold allocates addr to owner in the pool. An address outside the range
// is left out: it cannot be handed out anyway. An address held by another
// owner is noted in shared.
func (e *poolEntry) hold(owner string, addr netip.Addr) {
	err := e.pool.AllocateAddr(addr, owner)
	if held, ok := e.pool.Lookup(addr); errors.Is(err, ipam.ErrInUse) && ok && held == lockMark(owner, addr) {
		// The lock found for owner: its IPAddress now shows.
		_, _ = e.pool.Release(addr)
		err = e.pool.AllocateAddr(addr, owner)
	}
	if errors.Is(err, ipam.ErrInUse) && !slices.Contains(e.shared[addr], owner) {
		if e.shared == nil {
			e.shared = map[netip.Addr][]string{}
		}
		e.shared[addr] = append(e.shared[addr], owner)
	}
}

// removed records that owner's IPAddress of addr is gone.
func (e *poolEntry) removed(owner string, addr netip.Addr) {
	if e.pool == nil {
		return
	}
	if a, ok := e.objects[owner]; ok && a == addr {
		delete(e.objects, owner)
		if e.pool.Check(addr) != nil {
			e.outOfRange--
		}
	}
	e.dirty = true
	if others := slices.DeleteFunc(e.shared[addr], func(o string) bool { return o == owner }); len(others) > 0 {
		e.shared[addr] = others
	} else {
		delete(e.shared, addr)
	}
	e.release(owner, addr)
}

// release frees addr in the pool if owner holds it. When another
// IPAddress names the same address, the pool keeps it taken for that one.
func (e *poolEntry) release(owner string, addr netip.Addr) {
	if e.pool == nil {
		return
	}
	if held, ok := e.pool.Lookup(addr); !ok || held != owner {
		return
	}
	_, _ = e.pool.Release(addr)
	if others := e.shared[addr]; len(others) > 0 {
		delete(e.shared, addr)
		for _, o := range others {
			e.hold(o, addr)
		}
	}
}

// counts returns the pool's address counts for the status, and how many
// IPAddresses the pool does not hold (out of range, or an address another
// IPAddress holds too). It walks no more than the addresses held twice.
func (e *poolEntry) counts() (total, used, free, outOfRange, notHeld uint64) {
	s := e.pool.Stats()
	size, _ := s.Size.Uint64()
	excluded, _ := s.Excluded.Uint64()
	reserved, _ := s.Reserved.Uint64()
	total = size - excluded - reserved
	free, _ = s.Free.Uint64()
	notHeld = uint64(e.outOfRange)
	for a, owners := range e.shared {
		for _, o := range owners {
			if held, ok := e.pool.Lookup(a); e.objects[o] == a && (!ok || held != o) {
				notHeld++
			}
		}
	}
	return total, uint64(len(e.objects)), free, uint64(e.outOfRange), notHeld
}

// poolCache holds one poolEntry per pool object, for one epoch (one process).
type poolCache struct {
	epoch string

	mu      sync.Mutex
	entries map[poolKey]*poolEntry
}

func newPoolCache(epoch string) *poolCache {
	return &poolCache{epoch: epoch, entries: make(map[poolKey]*poolEntry)}
}

// get returns the entry for key, or nil.
func (c *poolCache) get(key poolKey) *poolEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[key]
}

// entry returns the entry for key and uid, replacing one left by an earlier
// pool of the same name with a fresh machine.
func (c *poolCache) entry(key poolKey, uid types.UID) *poolEntry {
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
func (c *poolCache) remove(key poolKey) *poolEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	delete(c.entries, key)
	return e
}
