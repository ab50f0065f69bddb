package cacheready

import (
	"fmt"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// Machine decides the CacheReady condition of one object (an address pool,
// say) whose cache a controller rebuilds in memory, and when to build or drop that cache. It is
// a value: Step returns a new machine and leaves the receiver unchanged, so
// a machine can be copied, compared with == and kept in a map. Create one
// per object per process with New; the zero value is a machine
// with the empty epoch, whose True IsReady never accepts.
//
// The epoch names the running process. It is published beside the condition
// (the adapter stores it in the object's status) and is what stops a
// restarted process from trusting its predecessor's True.
//
// Rules, in the order Step applies them:
//
//   - Nothing is published before the first Observed. That observation
//     publishes False and asks for a build: reason OwnerRestarted when a
//     stored condition was written by another epoch, whatever its status;
//     NotInitialized when there is none or it carries this epoch (a second
//     machine for the same object in one process does not trust the first).
//     A paused object is published False/Paused instead; an object being deleted
//     goes to Gone.
//   - True is published only when a build for Generation() succeeded in
//     this machine (BuildSucceeded while NotBuilt or Failed), and is kept
//     through generation changes that leave the cache-relevant spec alone
//     (GenerationChanged with SpecChanged false: only ObservedGeneration
//     moves, conditions.Set keeps the transition time).
//   - An Observed with a higher generation than the machine has seen is
//     treated as a spec change (the machine cannot tell): from Ready it
//     publishes False/SpecChanged and asks for a rebuild. An adapter that
//     knows the cache-relevant spec did not change sends GenerationChanged
//     first. An Observed or GenerationChanged with a lower generation
//     than the machine has seen is stale and ignored; so is one with a
//     negative generation.
//   - A BuildSucceeded for a generation other than Generation() (an older
//     one, or a negative one) is discarded and a build for Generation() is
//     asked for again. Since a success replaces the cache, a stale success
//     in Ready publishes False/Building. A stale success while Paused asks
//     to drop the cache again.
//   - A BuildFailed for a generation other than Generation() asks for a
//     build again while one is awaited (NotBuilt); in Ready or Failed it is
//     ignored (the cache, or the failure being reported, is Generation()'s).
//   - BuildFailed for Generation() publishes False/BuildFailed with the
//     error as message: each byte that is not valid UTF-8 replaced by
//     U+FFFD, as encoding/json (and so the API server) stores it, then
//     truncated to conditions.MaxMessageLength, so that the stored condition reads back
//     equal and a retry failing the same way writes nothing. The next
//     Observed is the retry: it asks for a build and keeps the
//     condition until the outcome is known. A failure in Ready leaves the
//     (intact) cache Ready.
//   - Paused, or an Observed with Paused, publishes False/Paused and
//     drops the cache; Resumed, or an Observed without Paused, in
//     Paused publishes False/Building and asks for a build.
//   - Dropped in Ready publishes False/CacheDropped and asks for a
//     build; while NotBuilt it asks again.
//   - Deleted, or an Observed with Deleting, goes to Gone, drops the
//     cache and publishes nothing. Every event after Gone is ignored; forget
//     the machine (an object re-created under the same name needs a new one).
//   - The published condition always carries Generation() as
//     ObservedGeneration. A condition is published only when it differs
//     from what the machine last published, or, on Observed, from what
//     is stored (its Status, ObservedGeneration, Reason, Message, or the stored
//     epoch), so a lost or overwritten status write is repaired at the next
//     observation.
//   - Build is level-triggered: every Observed while NotBuilt asks
//     again. An adapter that builds in the background runs one build at a
//     time and reports each with the generation it built.
type Machine struct {
	epoch   string
	state   State
	gen     int64
	reason  string // of the condition in the current state
	message string
	// published is the condition (without time) the machine believes is
	// stored with its epoch; valid when havePublished.
	published     conditions.Condition
	havePublished bool
}

// New returns a machine in StateUnobserved for the process
// identified by epoch, a non-empty ID unique to the process (random at
// start; fixed in tests). It does not allocate.
func New(epoch string) Machine {
	return Machine{epoch: epoch}
}

// State returns the machine's state.
func (m Machine) State() State { return m.state }

// Epoch returns the epoch the machine was created with.
func (m Machine) Epoch() string { return m.epoch }

// Generation returns the object generation the machine last saw; 0 before the
// first Observed.
func (m Machine) Generation() int64 { return m.gen }

// Condition returns the CacheReady condition the machine stands for, with a
// zero LastTransitionTime, and true; or false in StateUnobserved and
// StateGone, where it publishes nothing.
func (m Machine) Condition() (conditions.Condition, bool) {
	switch m.state {
	case StateUnobserved, StateGone:
		return conditions.Condition{}, false
	}
	st := conditions.ConditionFalse
	if m.state == StateReady {
		st = conditions.ConditionTrue
	}
	return conditions.Condition{
		Type:               Type,
		Status:             st,
		ObservedGeneration: m.gen,
		Reason:             m.reason,
		Message:            conditions.PublishableMessage(m.message),
	}, true
}

// Step applies e and returns the next machine and what to do; see
// Machine for the rules. A pointer to an event is applied as the event
// it points to; a nil event or nil pointer is ignored. An ignored event
// returns m unchanged and the zero Decision. Step never panics,
// whatever the event holds.
func (m Machine) Step(e Event) (Machine, Decision) {
	if m.state == StateGone {
		return m, Decision{}
	}
	e = eventValue(e)
	n := m
	var (
		d  Decision
		ok bool
	)
	switch e := e.(type) {
	case Observed:
		if d, ok = n.observe(e); !ok {
			return m, Decision{}
		}
		n.publishAgainst(&d, e.Stored, e.StoredEpoch)
		return n, d
	case BuildSucceeded:
		d, ok = n.succeeded(e)
	case BuildFailed:
		d, ok = n.failed(e)
	case GenerationChanged:
		d, ok = n.generationChanged(e)
	case Dropped:
		d, ok = n.dropped()
	case Paused:
		if ok = n.hasCache(); ok {
			d = n.pause()
		}
	case Resumed:
		ok = n.state == StatePaused
		if ok {
			d = n.toBuild(ReasonBuilding, "the pool was resumed; rebuilding the cache")
		}
	case Deleted:
		d, ok = n.delete(), true
	}
	if !ok {
		return m, Decision{}
	}
	if n.havePublished {
		n.publishAgainst(&d, &n.published, n.epoch)
	} else {
		n.publishAgainst(&d, nil, "")
	}
	return n, d
}

// hasCache reports whether the adapter may hold a cache the machine asked for.
func (m *Machine) hasCache() bool {
	return m.state == StateNotBuilt || m.state == StateReady || m.state == StateFailed
}

func (m *Machine) observe(e Observed) (Decision, bool) {
	if e.Generation < 0 || (m.state != StateUnobserved && e.Generation < m.gen) {
		return Decision{}, false
	}
	if e.Deleting {
		return m.delete(), true
	}
	newer := e.Generation > m.gen
	m.gen = e.Generation
	switch m.state {
	case StateUnobserved:
		switch {
		case e.Paused:
			m.state, m.reason, m.message = StatePaused, ReasonPaused, pausedMessage
			return Decision{}, true
		case e.Stored != nil && e.StoredEpoch != m.epoch:
			return m.toBuild(ReasonOwnerRestarted, fmt.Sprintf(
				"the condition was written by epoch %q; this process (epoch %q) rebuilds the cache",
				e.StoredEpoch, m.epoch)), true
		default:
			return m.toBuild(ReasonNotInitialized, "the cache has not been built by this process yet"), true
		}
	case StatePaused:
		if e.Paused {
			return Decision{}, true
		}
		return m.toBuild(ReasonBuilding, "the pool was resumed; rebuilding the cache"), true
	}
	if e.Paused {
		return m.pause(), true
	}
	switch m.state {
	case StateReady:
		if newer {
			return m.toBuild(ReasonSpecChanged, specChangedMessage(m.gen)), true
		}
		return Decision{}, true
	default: // NotBuilt, or Failed: this observation is the retry
		return m.toBuild(m.reason, m.message), true
	}
}

func (m *Machine) succeeded(e BuildSucceeded) (Decision, bool) {
	switch m.state {
	case StateUnobserved:
		return Decision{}, false
	case StatePaused:
		return Decision{Drop: true}, true
	}
	if e.Generation == m.gen {
		m.state, m.reason = StateReady, ReasonCacheBuilt
		m.message = fmt.Sprintf("the cache was built by epoch %q", m.epoch)
		return Decision{}, true
	}
	if m.state == StateReady {
		return m.toBuild(ReasonBuilding, fmt.Sprintf(
			"a build for generation %d replaced the cache; rebuilding for generation %d", e.Generation, m.gen)), true
	}
	return m.toBuild(m.reason, m.message), true
}

func (m *Machine) failed(e BuildFailed) (Decision, bool) {
	switch {
	case m.state == StateNotBuilt && e.Generation != m.gen:
		return m.toBuild(m.reason, m.message), true
	case (m.state == StateNotBuilt || m.state == StateFailed) && e.Generation == m.gen:
		m.state, m.reason, m.message = StateFailed, ReasonBuildFailed, errorText(e.Err)
		return Decision{}, true
	}
	return Decision{}, false
}

func (m *Machine) generationChanged(e GenerationChanged) (Decision, bool) {
	if m.state == StateUnobserved || e.Generation <= m.gen {
		return Decision{}, false
	}
	m.gen = e.Generation
	switch {
	case m.state == StatePaused:
		return Decision{}, true
	case e.SpecChanged && m.hasCache():
		return m.toBuild(ReasonSpecChanged, specChangedMessage(m.gen)), true
	case m.state == StateNotBuilt:
		return m.toBuild(m.reason, m.message), true
	}
	return Decision{}, true // Ready or Failed with the same spec
}

func (m *Machine) dropped() (Decision, bool) {
	switch m.state {
	case StateReady:
		return m.toBuild(ReasonCacheDropped, "the local cache was dropped; rebuilding"), true
	case StateNotBuilt:
		return m.toBuild(m.reason, m.message), true
	}
	return Decision{}, false
}

// pause moves to Paused from NotBuilt, Ready or Failed.
func (m *Machine) pause() Decision {
	m.state, m.reason, m.message = StatePaused, ReasonPaused, pausedMessage
	return Decision{Drop: true}
}

func (m *Machine) delete() Decision {
	drop := m.hasCache()
	m.state, m.reason, m.message = StateGone, "", ""
	m.published, m.havePublished = conditions.Condition{}, false
	return Decision{Drop: drop}
}

// toBuild moves to NotBuilt with the given reason and asks for a build.
func (m *Machine) toBuild(reason, message string) Decision {
	m.state, m.reason, m.message = StateNotBuilt, reason, message
	return Decision{Build: true}
}

// publishAgainst sets d.Publish when the machine's condition differs from
// base (what is stored, or was last published) or base's epoch is not the
// machine's, and records the condition as published.
func (m *Machine) publishAgainst(d *Decision, base *conditions.Condition, baseEpoch string) {
	want, ok := m.Condition()
	if !ok {
		return
	}
	if base != nil && baseEpoch == m.epoch && sameExceptTime(*base, want) {
		m.published, m.havePublished = want, true
		return
	}
	d.Publish, d.Epoch = &want, m.epoch
	m.published, m.havePublished = want, true
}

func sameExceptTime(a, b conditions.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.ObservedGeneration == b.ObservedGeneration &&
		a.Reason == b.Reason && a.Message == b.Message
}

const pausedMessage = "the pool is paused; the cache is dropped"

func specChangedMessage(gen int64) string {
	return fmt.Sprintf("the cache-relevant spec changed at generation %d; rebuilding the cache", gen)
}

// errorText is err's message for a condition: valid UTF-8, bounded in length
// (see conditions.PublishableMessage), and never a panic, even from an Error method that
// dereferences a nil receiver.
func errorText(err error) (text string) {
	const fallback = "the cache build failed"
	if err == nil {
		return fallback
	}
	defer func() {
		if recover() != nil {
			text = fallback + " (its error could not be printed)"
		}
	}()
	return conditions.PublishableMessage(err.Error())
}
