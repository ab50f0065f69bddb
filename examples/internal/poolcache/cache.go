// Package poolcache holds the one map both controllers of the examples keep
// of their in-memory pools: one entry per pool object, for one process (one
// epoch), replaced when a pool of the same name is made again (another
// UID).
//
// The cache guards its map only. What an entry holds is the entry's own to
// guard: the controllers follow one rule for it (a method whose name ends
// in Locked needs the caller to hold the entry's mutex; every other method
// takes it itself, in one file per controller).
package poolcache

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Cache holds one entry of type E per pool key K. It is safe for
// concurrent use; the zero value is not usable (New).
type Cache[K comparable, E any] struct {
	newEntry func(uid types.UID) *E

	mu      sync.Mutex // guards entries, never held while an entry's is
	entries map[K]slot[E]
}

// slot is an entry and the UID of the pool object it was made for.
type slot[E any] struct {
	uid   types.UID
	entry *E
}

// New returns an empty cache whose entries newEntry makes, for the pool
// object of uid.
func New[K comparable, E any](newEntry func(uid types.UID) *E) *Cache[K, E] {
	return &Cache[K, E]{newEntry: newEntry, entries: make(map[K]slot[E])}
}

// Get returns key's entry and the UID of the pool object it was made for,
// or nil and "".
func (c *Cache[K, E]) Get(key K) (*E, types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.entries[key]
	return s.entry, s.uid
}

// Entry returns key's entry for the pool object of uid, making one (with
// newEntry) when there is none or the one there was made for another UID:
// a pool deleted and made again under its name starts afresh.
func (c *Cache[K, E]) Entry(key K, uid types.UID) *E {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.entries[key]
	if s.entry == nil || s.uid != uid {
		s = slot[E]{uid: uid, entry: c.newEntry(uid)}
		c.entries[key] = s
	}
	return s.entry
}

// Remove forgets key's entry and returns it, or nil: the caller drops what
// it holds (under the entry's own lock).
func (c *Cache[K, E]) Remove(key K) *E {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.entries[key]
	delete(c.entries, key)
	return s.entry
}
