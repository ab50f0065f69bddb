package cacheready

import (
	"strconv"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// Type is the condition type a Machine publishes.
const Type = "CacheReady"

// Reasons of the CacheReady condition, and of IsReady's answer.
const (
	// ReasonCacheBuilt: True, the cache was built by the live epoch.
	ReasonCacheBuilt = "CacheBuilt"
	// ReasonNotInitialized: this process has not built the cache yet and
	// found no condition from another process (IsReady: no condition).
	ReasonNotInitialized = "NotInitialized"
	// ReasonOwnerRestarted: the stored condition was written by another
	// epoch; whatever it said, this process rebuilds the cache.
	ReasonOwnerRestarted = "OwnerRestarted"
	// ReasonSpecChanged: the cache-relevant spec changed; rebuilding.
	ReasonSpecChanged = "SpecChanged"
	// ReasonBuildFailed: the last build for this generation failed; the
	// message is the error.
	ReasonBuildFailed = "BuildFailed"
	// ReasonPaused: the object is paused and the cache dropped.
	ReasonPaused = "Paused"
	// ReasonBuilding: rebuilding after a resume, or after a build for
	// another generation replaced the cache.
	ReasonBuilding = "Building"
	// ReasonCacheDropped: the local cache was lost; rebuilding.
	ReasonCacheDropped = "CacheDropped"
	// ReasonStaleGeneration (IsReady): a True condition observed another
	// generation than the current one. It is conditions.ReasonStaleGeneration,
	// which Summary gives for the same case.
	ReasonStaleGeneration = conditions.ReasonStaleGeneration
	// ReasonNotReady (IsReady): a condition that is not True carries no
	// usable reason of its own. It is conditions.ReasonNotReady, as in Summary.
	ReasonNotReady = conditions.ReasonNotReady
)

// State is the state of a Machine.
type State int

// The states of a Machine.
const (
	// StateUnobserved: a fresh machine that has not seen its object; it
	// publishes nothing until the first Observed.
	StateUnobserved State = iota
	// StateNotBuilt: a build for Generation() is wanted; CacheReady is False.
	StateNotBuilt
	// StateReady: the local cache was built in this epoch for a generation
	// whose cache-relevant spec is Generation()'s; CacheReady is True.
	StateReady
	// StateFailed: the build for Generation() failed; CacheReady is False
	// with reason BuildFailed until the retry (the next Observed).
	StateFailed
	// StatePaused: the object is paused, the cache dropped; CacheReady is False.
	StatePaused
	// StateGone: the object is being deleted; every later event is ignored.
	StateGone
)

var stateNames = [...]string{"Unobserved", "NotBuilt", "Ready", "Failed", "Paused", "Gone"}

// String returns the state's name, e.g. "NotBuilt", or "State(7)" for a
// value outside the constants.
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}
