package cacheready

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// cacheWorld is a small, plain model of everything around a Machine: the
// pool object (generation, which spec version each generation carries,
// paused, deleting), its persisted status (conditions and the stored epoch),
// and the local process (its cache and the builds it has running).
type cacheWorld struct {
	clock time.Time

	// The pool.
	gen      int64
	specOf   map[int64]int // spec version (cache-relevant part) per generation
	paused   bool
	deleting bool

	// Its persisted status.
	persisted   []conditions.Condition
	storedEpoch string

	// The live process.
	epochs  int
	m       Machine
	cache   localCache
	pending []int64 // generations of running builds
	// inSync: the machine has observed the pool since the status was last
	// tampered with (restart, or someone else wiping the condition).
	inSync bool
}

// localCache is what the local process holds.
type localCache struct {
	built bool
	epoch string // the process that built it
	gen   int64  // the generation it was built for
}

func (w *cacheWorld) restart() {
	w.epochs++
	w.m = New(fmt.Sprintf("epoch-%d", w.epochs))
	w.cache, w.pending, w.inSync = localCache{}, nil, false
}

func (w *cacheWorld) observation() Observed {
	e := Observed{Generation: w.gen, Paused: w.paused, Deleting: w.deleting, StoredEpoch: w.storedEpoch}
	if c, ok := conditions.Find(w.persisted, Type); ok {
		e.Stored = &c
	}
	return e
}

// deliver steps the machine and carries out its decision as an adapter does:
// write the condition with conditions.Set and the epoch beside it, then drop or build.
// Half the events are passed by pointer, which Step must not tell apart.
func (w *cacheWorld) deliver(t *rapid.T, e Event) {
	ev := e
	if rapid.Bool().Draw(t, "byPointer") {
		ev = pointerTo(e)
	}
	next, d := w.m.Step(ev)
	checkDecision(t, next, d)
	w.clock = w.clock.Add(time.Duration(rapid.IntRange(0, 2500).Draw(t, "ms")) * time.Millisecond)
	if d.Publish != nil {
		before, had := conditions.Find(w.persisted, Type)
		w.persisted, _ = conditions.Set(w.persisted, *d.Publish, w.clock)
		after, _ := conditions.Find(w.persisted, Type)
		want := before.LastTransitionTime
		if !had || before.Status != after.Status {
			want = w.clock.Truncate(time.Second)
		}
		if !after.LastTransitionTime.Equal(want) {
			t.Fatalf("status %s -> %s: transition time %v, want %v", before.Status, after.Status, after.LastTransitionTime, want)
		}
		w.storedEpoch = d.Epoch
	}
	if d.Drop {
		w.cache = localCache{}
	}
	if d.Build {
		w.pending = append(w.pending, next.Generation())
	}
	if _, ok := e.(Observed); ok && next.State() != StateUnobserved {
		w.inSync = true
	}
	w.m = next
}

// notifyGeneration tells the machine the pool's generation, with SpecChanged
// computed truthfully against the generation the machine last saw.
func (w *cacheWorld) notifyGeneration(t *rapid.T) {
	changed := w.specOf[w.gen] != w.specOf[w.m.Generation()] || w.m.Generation() == 0
	w.deliver(t, GenerationChanged{Generation: w.gen, SpecChanged: changed})
}

func (w *cacheWorld) check(t *rapid.T) {
	live := w.m.Epoch()
	c, has := conditions.Find(w.persisted, Type)
	if has {
		if err := conditions.Validate(c); err != nil {
			t.Fatalf("persisted condition invalid: %v", err)
		}
	}
	// Safety, as the issue states it: a persisted True stored with the live
	// epoch means the live process built the cache for a spec equal to the
	// one of the generation the condition claims. Deletion is the exception
	// the issue asks for: it drops the cache and publishes nothing, so a
	// reader must treat a pool being deleted as not ready.
	gone := w.m.State() == StateGone
	if has && c.Status == conditions.ConditionTrue && w.storedEpoch == live && !gone {
		if !w.cache.built || w.cache.epoch != live || w.specOf[w.cache.gen] != w.specOf[c.ObservedGeneration] {
			t.Fatalf("persisted True (generation %d, epoch %s) but local cache %+v", c.ObservedGeneration, live, w.cache)
		}
	}
	// Safety, as a reader sees it: IsReady for the pool's current
	// generation means the live cache matches the current spec.
	if ready, _ := IsReady(w.persisted, w.gen, w.storedEpoch, live); ready && !gone {
		if !w.cache.built || w.cache.epoch != live || w.specOf[w.cache.gen] != w.specOf[w.gen] {
			t.Fatalf("IsReady at generation %d but local cache %+v", w.gen, w.cache)
		}
	}
	// Agreement: once observed, what is persisted is what the machine
	// stands for, and the reader-side check agrees with its state.
	if st := w.m.State(); w.inSync && st != StateUnobserved && st != StateGone {
		want, _ := w.m.Condition()
		c.LastTransitionTime = time.Time{}
		if !has || c != want || w.storedEpoch != live {
			t.Fatalf("persisted %+v (epoch %q), machine in %v stands for %+v (epoch %q)", c, w.storedEpoch, st, want, live)
		}
		if ready, reason := IsReady(w.persisted, w.m.Generation(), w.storedEpoch, live); ready != (st == StateReady) {
			t.Fatalf("IsReady = %v (%s) in state %v", ready, reason, st)
		}
	}
	// Liveness: whatever happened, an observation followed by a successful
	// build for the current generation ends Ready (or Paused, or Gone).
	m, d := w.m.Step(w.observation())
	persisted, epoch := w.persisted, w.storedEpoch
	if d.Publish != nil {
		persisted, _ = conditions.Set(persisted, *d.Publish, w.clock)
		epoch = d.Epoch
	}
	if m.State() == StateNotBuilt && !d.Build {
		t.Fatalf("observation left the machine NotBuilt without asking for a build")
	}
	m, d = m.Step(BuildSucceeded{Generation: m.Generation()})
	if d.Publish != nil {
		persisted, _ = conditions.Set(persisted, *d.Publish, w.clock)
		epoch = d.Epoch
	}
	ready, reason := IsReady(persisted, w.gen, epoch, live)
	switch {
	case w.deleting:
		if m.State() != StateGone {
			t.Fatalf("deleted pool: machine ends %v", m.State())
		}
	case w.paused:
		if m.State() != StatePaused || ready {
			t.Fatalf("paused pool: machine ends %v, ready %v", m.State(), ready)
		}
	default:
		if m.State() != StateReady || !ready {
			t.Fatalf("observe + build success: machine ends %v, IsReady %v (%s)", m.State(), ready, reason)
		}
	}
}

func TestMachineInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := &cacheWorld{clock: t0, gen: 1, specOf: map[int64]int{1: 1}}
		// Other conditions share the slice; conditions.Set must leave them alone.
		w.persisted, _ = conditions.Set(nil, conditions.Condition{Type: "Ready", Status: conditions.ConditionFalse, Reason: "Waiting"}, w.clock)
		w.restart()
		maybe := func(t *rapid.T, e Event) {
			if rapid.Bool().Draw(t, "notify") {
				w.deliver(t, e)
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"observe": func(t *rapid.T) { w.deliver(t, w.observation()) },
			"specChange": func(t *rapid.T) {
				w.gen++
				w.specOf[w.gen] = w.specOf[w.gen-1] + 1
				if rapid.Bool().Draw(t, "notify") {
					w.notifyGeneration(t)
				}
			},
			"otherChange": func(t *rapid.T) {
				w.gen++
				w.specOf[w.gen] = w.specOf[w.gen-1]
				if rapid.Bool().Draw(t, "notify") {
					w.notifyGeneration(t)
				}
			},
			"notifyGeneration": func(t *rapid.T) { w.notifyGeneration(t) },
			"pause": func(t *rapid.T) {
				w.paused = true
				maybe(t, Paused{})
			},
			"resume": func(t *rapid.T) {
				w.paused = false
				maybe(t, Resumed{})
			},
			"delete": func(t *rapid.T) {
				if rapid.IntRange(0, 9).Draw(t, "rarely") != 0 {
					t.Skip("deletion is final; keep it rare")
				}
				w.deleting = true
				maybe(t, Deleted{})
			},
			"finishBuild": func(t *rapid.T) {
				if len(w.pending) == 0 {
					t.Skip("no build running")
				}
				i := rapid.IntRange(0, len(w.pending)-1).Draw(t, "build")
				g := w.pending[i]
				w.pending = slices.Delete(w.pending, i, i+1)
				if rapid.IntRange(0, 3).Draw(t, "outcome") == 0 {
					w.deliver(t, BuildFailed{Generation: g, Err: errors.New("restore: bad snapshot")})
					return
				}
				w.cache = localCache{built: true, epoch: w.m.Epoch(), gen: g}
				w.deliver(t, BuildSucceeded{Generation: g})
			},
			"loseCache": func(t *rapid.T) {
				w.cache = localCache{}
				w.deliver(t, Dropped{})
			},
			"restart": func(t *rapid.T) { w.restart() },
			"wipeStatus": func(t *rapid.T) {
				w.persisted, _ = conditions.Remove(w.persisted, Type)
				w.storedEpoch = ""
				w.inSync = false
			},
			"touchOtherCondition": func(t *rapid.T) {
				st := rapid.SampledFrom([]conditions.Status{conditions.ConditionTrue, conditions.ConditionFalse}).Draw(t, "status")
				w.persisted, _ = conditions.Set(w.persisted, conditions.Condition{Type: "Ready", Status: st, Reason: "Other"}, w.clock)
				if w.persisted[0].Type != "Ready" {
					t.Fatalf("Set reordered conditions: %v", w.persisted)
				}
			},
			"": func(t *rapid.T) { w.check(t) },
		})
	})
}
