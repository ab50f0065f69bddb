package conditions

// CacheEvent is something that happened to a pool or its local cache, fed to
// CacheMachine.Step. It is sealed: the implementations are PoolObserved,
// BuildSucceeded, BuildFailed, GenerationChanged, CacheDropped, PoolPaused,
// PoolResumed and PoolDeleted, and pointers to them, which Go cannot keep
// out (a pointer's method set holds its value's methods). Step treats a
// pointer exactly as the value it points to, and a nil pointer, like a nil
// CacheEvent, as no event: it is ignored.
type CacheEvent interface{ cacheEvent() }

// eventValue returns the event e points to when e is a pointer to one of
// the sealed types, nil when that pointer is nil, and e otherwise, so that
// Step never tells a pointer from its value.
func eventValue(e CacheEvent) CacheEvent {
	switch p := e.(type) {
	case *PoolObserved:
		return deref(p)
	case *BuildSucceeded:
		return deref(p)
	case *BuildFailed:
		return deref(p)
	case *GenerationChanged:
		return deref(p)
	case *CacheDropped:
		return deref(p)
	case *PoolPaused:
		return deref(p)
	case *PoolResumed:
		return deref(p)
	case *PoolDeleted:
		return deref(p)
	}
	return e
}

func deref[E CacheEvent](p *E) CacheEvent {
	if p == nil {
		return nil
	}
	return *p
}

// PoolObserved reports the pool as the adapter read it: its generation,
// whether it is paused or being deleted, and the CacheReady condition and
// epoch stored in its status. Step treats it as the level-triggered truth:
// it republishes whatever the stored condition gets wrong, and asks for a
// build while the cache is not built.
type PoolObserved struct {
	Generation  int64      // the pool's metadata.generation
	Paused      bool       // the pool is paused
	Deleting    bool       // the pool is being deleted
	Stored      *Condition // the persisted CacheReady condition; nil if none
	StoredEpoch string     // the epoch stored beside it
}

// BuildSucceeded reports that a build for Generation finished and the local
// cache now holds it (it replaced whatever the cache held before).
type BuildSucceeded struct {
	Generation int64
}

// BuildFailed reports that a build for Generation failed; the local cache was
// left as it was. Err becomes the published message.
type BuildFailed struct {
	Generation int64
	Err        error
}

// GenerationChanged reports the pool's new generation. SpecChanged says
// whether the part of the spec the cache is built from changed since the
// generation the machine last saw; if it did not, a Ready cache stays Ready.
type GenerationChanged struct {
	Generation  int64
	SpecChanged bool
}

// CacheDropped reports that the local cache was lost outside the machine's
// decisions (evicted, reset).
type CacheDropped struct{}

// PoolPaused reports that the pool was paused.
type PoolPaused struct{}

// PoolResumed reports that the pool was resumed.
type PoolResumed struct{}

// PoolDeleted reports that the pool is being deleted (or is gone).
type PoolDeleted struct{}

func (PoolObserved) cacheEvent()      {}
func (BuildSucceeded) cacheEvent()    {}
func (BuildFailed) cacheEvent()       {}
func (GenerationChanged) cacheEvent() {}
func (CacheDropped) cacheEvent()      {}
func (PoolPaused) cacheEvent()        {}
func (PoolResumed) cacheEvent()       {}
func (PoolDeleted) cacheEvent()       {}

// CacheDecision is what the adapter does after a Step, in this order: write
// Publish (with Set, storing Epoch beside it), then drop or build the cache.
// The zero value means "do nothing". Build and Drop are never both true.
type CacheDecision struct {
	// Publish is the CacheReady condition to write with Set; nil: write
	// nothing. Its LastTransitionTime is zero (Set fills it), its
	// ObservedGeneration is the machine's Generation(), and its Message is
	// valid UTF-8 of at most MaxMessageLength bytes, unchanged by a JSON
	// round trip.
	Publish *Condition
	// Epoch is the epoch to store beside the condition (the machine's
	// epoch) when Publish is not nil; "" otherwise.
	Epoch string
	// Build asks for a (re)build of the local cache for the machine's
	// Generation(), reported back with BuildSucceeded or BuildFailed.
	Build bool
	// Drop asks to drop the local cache.
	Drop bool
}
