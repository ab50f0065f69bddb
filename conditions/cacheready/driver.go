package cacheready

import "github.com/vmnetkit/vmnetkit/conditions"

// Driver carries out a Machine's decisions: the loop every adapter runs
// around Step (write the condition with the epoch, drop or build the cache,
// feed the build's result back), written once. Its fields are the adapter's
// side effects, of a cache of type C; Run calls them in the order a
// Decision gives and does nothing else, so the package stays pure.
//
// Publish and Build are required; Adopt and Drop may be nil.
type Driver[C any] struct {
	// Publish writes cond (with conditions.Set) and epoch into the
	// object's status. When fresh is true, the write is the True that
	// publishes built, a cache a build just made: the adapter writes what
	// the cache says (its counts) in the same write. An error ends Run.
	Publish func(cond conditions.Condition, epoch string, built C, fresh bool) error
	// Build builds the cache for the object's generation from its
	// persisted state; an error is fed back as BuildFailed.
	Build func(generation int64) (C, error)
	// Adopt makes a built cache the live one: right after the write that
	// publishes it, or right after the build when nothing is written.
	Adopt func(built C)
	// Drop forgets the live cache.
	Drop func()
}

// Run steps m with ev, then with the outcome of each build the machine
// asks for, until it asks for nothing more, and returns the machine to keep.
// When Publish fails, Run returns its error with the machine as it was
// before that step (nothing after the failed write is done: the next event
// decides again); a build made for that write is not adopted.
func (d Driver[C]) Run(m Machine, ev Event) (Machine, error) {
	var built C
	fresh := false
	for ev != nil {
		next, dec := m.Step(ev)
		ev = nil
		if dec.Publish != nil {
			if err := d.Publish(*dec.Publish, dec.Epoch, built, fresh); err != nil {
				return m, err
			}
		}
		m = next
		if fresh {
			if d.Adopt != nil {
				d.Adopt(built)
			}
			var zero C
			built, fresh = zero, false
		}
		if dec.Drop && d.Drop != nil {
			d.Drop()
		}
		if dec.Build {
			gen := m.Generation()
			c, err := d.Build(gen)
			if err != nil {
				ev = BuildFailed{Generation: gen, Err: err}
				continue
			}
			built, fresh = c, true
			ev = BuildSucceeded{Generation: gen}
		}
	}
	return m, nil
}
