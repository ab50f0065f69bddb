package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
)

// conditionsSection restarts a controller under a pool's CacheReady
// condition: the True written by the first process is not trusted by the
// second until it has built its own cache. The clock and the epochs are fixed
// so the output is the same on every run.
func conditionsSection(w io.Writer) error {
	r := &restartStory{w: w, clock: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC), generation: 1}

	fmt.Fprintln(w, `The pool object keeps CacheReady and the epoch of the process that wrote it;`)
	fmt.Fprintln(w, `the cache itself lives only in that process.`)
	fmt.Fprintln(w)

	a := cacheready.New("epoch-a1")
	fmt.Fprintf(w, "controller starts, epoch %s\n", a.Epoch())
	a, err := r.run(a)
	if err != nil {
		return err
	}
	r.read(a.Epoch())

	fmt.Fprintf(w, "\ncontroller restarts: its cache is gone, CacheReady=True (epoch %s) stays on the object\n", r.storedEpoch)
	b := cacheready.New("epoch-b2")
	fmt.Fprintf(w, "controller starts, epoch %s\n", b.Epoch())
	r.read(b.Epoch())
	if b, err = r.run(b); err != nil {
		return err
	}
	r.read(b.Epoch())
	if _, err = r.run(b); err != nil {
		return err
	}

	c, _ := conditions.Find(r.status, cacheready.Type)
	js, err := json.Marshal(c)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nstatus as the API server stores it (cacheEpoch %q):\n  %s\n", r.storedEpoch, js)
	fmt.Fprintf(w, "\nCacheReady history: %s\n", r.history)
	return nil
}

// restartStory is the pool's persisted status and a clock, shared by the
// processes that come and go.
type restartStory struct {
	w           io.Writer
	clock       time.Time
	generation  int64
	status      []conditions.Condition
	storedEpoch string
	history     string
}

func (r *restartStory) observe() cacheready.Observed {
	e := cacheready.Observed{Generation: r.generation, StoredEpoch: r.storedEpoch}
	if c, ok := conditions.Find(r.status, cacheready.Type); ok {
		e.Stored = &c
	}
	return e
}

// run observes the pool with m and carries out the decisions with a
// cacheready.Driver, as an adapter does: write the condition, build the
// cache (a reader looks while it is being built), write the True.
func (r *restartStory) run(m cacheready.Machine) (cacheready.Machine, error) {
	fmt.Fprintf(r.w, "  observe pool (generation %d)\n", r.generation)
	acted := false
	d := cacheready.Driver[struct{}]{
		Publish: func(c conditions.Condition, epoch string, _ struct{}, _ bool) error {
			acted = true
			r.clock = r.clock.Add(2 * time.Second)
			r.status, _ = conditions.Set(r.status, c, r.clock)
			r.storedEpoch = epoch
			c, _ = conditions.Find(r.status, cacheready.Type)
			if err := conditions.Validate(c); err != nil {
				return err
			}
			fmt.Fprintf(r.w, "    write CacheReady=%-5s %-14s epoch %s, since %s\n",
				c.Status, c.Reason, r.storedEpoch, c.LastTransitionTime.Format(time.TimeOnly))
			if r.history != "" {
				r.history += " -> "
			}
			r.history += string(c.Status)
			if c.Status != conditions.ConditionTrue {
				r.history += " (" + c.Reason + ")"
			}
			r.history += " [" + r.storedEpoch + "]"
			return nil
		},
		Build: func(gen int64) (struct{}, error) {
			acted = true
			fmt.Fprintf(r.w, "    build the cache for generation %d\n", gen)
			r.read(m.Epoch()) // while it builds
			return struct{}{}, nil
		},
	}
	m, err := d.Run(m, r.observe())
	if err == nil && !acted {
		fmt.Fprintln(r.w, "    nothing to write, nothing to build")
	}
	return m, err
}

// read is what a reader of the pool (an allocating webhook, another
// controller in the live process) decides.
func (r *restartStory) read(liveEpoch string) {
	ready, reason := cacheready.IsReady(r.status, r.generation, r.storedEpoch, liveEpoch)
	fmt.Fprintf(r.w, "  reader in epoch %s: IsReady = %v (%s)\n", liveEpoch, ready, reason)
}
