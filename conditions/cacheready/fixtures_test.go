package cacheready

// The times, epochs, messages, decisions, step sequences and checks that
// the tests of this package share; each test file keeps only what it alone
// uses.

import (
	"errors"
	"strconv"
	"time"

	"github.com/vmnetkit/vmnetkit/conditions"
)

var t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

func cond(typ string, st conditions.Status, gen int64, at time.Time, reason, msg string) conditions.Condition {
	return conditions.Condition{Type: typ, Status: st, ObservedGeneration: gen, LastTransitionTime: at, Reason: reason, Message: msg}
}

const (
	epochA = "epoch-a1"
	epochB = "epoch-b2"
)

// Messages the machine publishes, as the tests expect them.
const (
	msgNotInitialized = "the cache has not been built by this process yet"
	msgRestartedAB    = `the condition was written by epoch "epoch-a1"; this process (epoch "epoch-b2") rebuilds the cache`
	msgBuiltB         = `the cache was built by epoch "epoch-b2"`
	msgPaused         = "the pool is paused; the cache is dropped"
	msgResumed        = "the pool was resumed; rebuilding the cache"
	msgDropped        = "the local cache was dropped; rebuilding"
)

func msgSpecChanged(gen int) string {
	return "the cache-relevant spec changed at generation " + strconv.Itoa(gen) + "; rebuilding the cache"
}

// publish is the decision to write CacheReady with the machine's epoch (B).
func publish(st conditions.Status, gen int64, reason, msg string) Decision {
	return Decision{Publish: &conditions.Condition{Type: Type, Status: st, ObservedGeneration: gen, Reason: reason, Message: msg}, Epoch: epochB}
}

func (d Decision) withBuild() Decision { d.Build = true; return d }
func (d Decision) withDrop() Decision  { d.Drop = true; return d }

var (
	none  = Decision{}
	build = Decision{Build: true}
	drop  = Decision{Drop: true}
)

func stored(st conditions.Status, gen int64, reason, msg string) *conditions.Condition {
	return &conditions.Condition{Type: Type, Status: st, ObservedGeneration: gen, LastTransitionTime: t0, Reason: reason, Message: msg}
}

type cacheStep struct {
	event Event
	state State
	want  Decision
}

// observed is an Observed of generation gen, running, with no stored condition.
func observed(gen int64) Observed { return Observed{Generation: gen} }

// toReady brings a fresh machine (epoch B) to Ready at generation 3.
var toReady = []cacheStep{
	{observed(3), StateNotBuilt, publish(conditions.ConditionFalse, 3, ReasonNotInitialized, msgNotInitialized).withBuild()},
	{BuildSucceeded{Generation: 3}, StateReady, publish(conditions.ConditionTrue, 3, ReasonCacheBuilt, msgBuiltB)},
}

// toFailed brings a fresh machine (epoch B) to Failed at generation 3.
var toFailed = []cacheStep{
	toReady[0],
	{BuildFailed{Generation: 3, Err: errors.New("snapshot: 2 problems")}, StateFailed, publish(conditions.ConditionFalse, 3, ReasonBuildFailed, "snapshot: 2 problems")},
}

// toPaused brings a Ready machine (epoch B) to Paused at generation 3.
var toPaused = append(append([]cacheStep{}, toReady...),
	cacheStep{Paused{}, StatePaused, publish(conditions.ConditionFalse, 3, ReasonPaused, msgPaused).withDrop()})

func then(prefix []cacheStep, steps ...cacheStep) []cacheStep {
	return append(append([]cacheStep{}, prefix...), steps...)
}

// errorfer is what *testing.T and *rapid.T share.
type errorfer interface {
	Errorf(format string, args ...any)
}

// checkDecision checks what holds for every decision.
func checkDecision(t errorfer, m Machine, d Decision) {
	if d.Build && d.Drop {
		t.Errorf("decision %+v both builds and drops", d)
	}
	if d.Publish == nil {
		if d.Epoch != "" {
			t.Errorf("decision without Publish carries epoch %q", d.Epoch)
		}
		return
	}
	p := *d.Publish
	if d.Epoch != m.Epoch() {
		t.Errorf("published epoch %q, machine's %q", d.Epoch, m.Epoch())
	}
	if p.ObservedGeneration != m.Generation() {
		t.Errorf("published ObservedGeneration %d, machine's generation %d", p.ObservedGeneration, m.Generation())
	}
	if !p.LastTransitionTime.IsZero() {
		t.Errorf("published LastTransitionTime %v, want zero", p.LastTransitionTime)
	}
	if (p.Status == conditions.ConditionTrue) != (m.State() == StateReady) {
		t.Errorf("published %s in state %v", p.Status, m.State())
	}
	p.LastTransitionTime = t0
	if err := conditions.Validate(p); err != nil {
		t.Errorf("published an invalid condition: %v", err)
	}
	if c, ok := m.Condition(); !ok || c != *d.Publish {
		t.Errorf("Condition() = %+v, %v; published %+v", c, ok, *d.Publish)
	}
}
