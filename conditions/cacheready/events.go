package cacheready

import "github.com/vmnetkit/vmnetkit/conditions"

// Event is something that happened to the object whose cache the machine
// describes, or to that cache, fed to Machine.Step. It is sealed: the
// implementations are Observed, BuildSucceeded, BuildFailed,
// GenerationChanged, Dropped, Paused, Resumed and Deleted, and pointers to
// them, which Go cannot keep out (a pointer's method set holds its value's
// methods). Step treats a pointer exactly as the value it points to, and a
// nil pointer, like a nil Event, as no event: it is ignored.
type Event interface{ cacheEvent() }

// eventValue returns the event e points to when e is a pointer to one of
// the sealed types, nil when that pointer is nil, and e otherwise, so that
// Step never tells a pointer from its value.
func eventValue(e Event) Event {
	switch p := e.(type) {
	case *Observed:
		return deref(p)
	case *BuildSucceeded:
		return deref(p)
	case *BuildFailed:
		return deref(p)
	case *GenerationChanged:
		return deref(p)
	case *Dropped:
		return deref(p)
	case *Paused:
		return deref(p)
	case *Resumed:
		return deref(p)
	case *Deleted:
		return deref(p)
	}
	return e
}

func deref[E Event](p *E) Event {
	if p == nil {
		return nil
	}
	return *p
}

// Observed reports the object as the adapter read it: its generation,
// whether it is paused or being deleted, and the CacheReady condition and
// epoch stored in its status. Step treats it as the level-triggered truth:
// it republishes whatever the stored condition gets wrong, and asks for a
// build while the cache is not built.
type Observed struct {
	Generation  int64                 // the object's metadata.generation
	Paused      bool                  // the object is paused
	Deleting    bool                  // the object is being deleted
	Stored      *conditions.Condition // the persisted CacheReady condition; nil if none
	StoredEpoch string                // the epoch stored beside it
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

// GenerationChanged reports the object's new generation. SpecChanged says
// whether the part of the spec the cache is built from changed since the
// generation the machine last saw; if it did not, a Ready cache stays Ready.
type GenerationChanged struct {
	Generation  int64
	SpecChanged bool
}

// Dropped reports that the local cache was lost outside the machine's
// decisions (evicted, reset).
type Dropped struct{}

// Paused reports that the object was paused.
type Paused struct{}

// Resumed reports that the object was resumed.
type Resumed struct{}

// Deleted reports that the object is being deleted (or is gone).
type Deleted struct{}

func (Observed) cacheEvent()          {}
func (BuildSucceeded) cacheEvent()    {}
func (BuildFailed) cacheEvent()       {}
func (GenerationChanged) cacheEvent() {}
func (Dropped) cacheEvent()           {}
func (Paused) cacheEvent()            {}
func (Resumed) cacheEvent()           {}
func (Deleted) cacheEvent()           {}

// Decision is what the adapter does after a Step, in this order: write
// Publish (with conditions.Set, storing Epoch beside it), then drop or build the cache.
// The zero value means "do nothing". Build and Drop are never both true.
type Decision struct {
	// Publish is the CacheReady condition to write with conditions.Set; nil: write
	// nothing. Its LastTransitionTime is zero (conditions.Set fills it), its
	// ObservedGeneration is the machine's Generation(), and its Message is
	// valid UTF-8 of at most conditions.MaxMessageLength bytes, unchanged by a JSON
	// round trip.
	Publish *conditions.Condition
	// Epoch is the epoch to store beside the condition (the machine's
	// epoch) when Publish is not nil; "" otherwise.
	Epoch string
	// Build asks for a (re)build of the local cache for the machine's
	// Generation(), reported back with BuildSucceeded or BuildFailed.
	Build bool
	// Drop asks to drop the local cache.
	Drop bool
}
