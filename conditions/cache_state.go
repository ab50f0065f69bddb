package conditions

import "strconv"

// CacheReadyType is the condition type a CacheMachine publishes.
const CacheReadyType = "CacheReady"

// Reasons of the CacheReady condition, and of IsCacheReady's answer.
const (
	// ReasonCacheBuilt: True, the cache was built by the live epoch.
	ReasonCacheBuilt = "CacheBuilt"
	// ReasonNotInitialized: this process has not built the cache yet and
	// found no condition from another process (IsCacheReady: no condition).
	ReasonNotInitialized = "NotInitialized"
	// ReasonOwnerRestarted: the stored condition was written by another
	// epoch; whatever it said, this process rebuilds the cache.
	ReasonOwnerRestarted = "OwnerRestarted"
	// ReasonSpecChanged: the cache-relevant spec changed; rebuilding.
	ReasonSpecChanged = "SpecChanged"
	// ReasonBuildFailed: the last build for this generation failed; the
	// message is the error.
	ReasonBuildFailed = "BuildFailed"
	// ReasonPaused: the pool is paused and the cache dropped.
	ReasonPaused = "Paused"
	// ReasonBuilding: rebuilding after a resume, or after a build for
	// another generation replaced the cache.
	ReasonBuilding = "Building"
	// ReasonCacheDropped: the local cache was lost; rebuilding.
	ReasonCacheDropped = "CacheDropped"
	// ReasonStaleGeneration (IsCacheReady, Summary): a True condition
	// observed another generation than the current one.
	ReasonStaleGeneration = "StaleGeneration"
	// ReasonNotReady (IsCacheReady, Summary): a condition that is not True
	// carries no usable reason of its own.
	ReasonNotReady = "NotReady"
)

// CacheState is the state of a CacheMachine.
type CacheState int

// The states of a CacheMachine.
const (
	// StateUnobserved: a fresh machine that has not seen its pool; it
	// publishes nothing until the first PoolObserved.
	StateUnobserved CacheState = iota
	// StateNotBuilt: a build for Generation() is wanted; CacheReady is False.
	StateNotBuilt
	// StateReady: the local cache was built in this epoch for a generation
	// whose cache-relevant spec is Generation()'s; CacheReady is True.
	StateReady
	// StateFailed: the build for Generation() failed; CacheReady is False
	// with reason BuildFailed until the retry (the next PoolObserved).
	StateFailed
	// StatePaused: the pool is paused, the cache dropped; CacheReady is False.
	StatePaused
	// StateGone: the pool is being deleted; every later event is ignored.
	StateGone
)

var cacheStateNames = [...]string{"Unobserved", "NotBuilt", "Ready", "Failed", "Paused", "Gone"}

// String returns the state's name, e.g. "NotBuilt", or "CacheState(7)" for a
// value outside the constants.
func (s CacheState) String() string {
	if s >= 0 && int(s) < len(cacheStateNames) {
		return cacheStateNames[s]
	}
	return "CacheState(" + strconv.Itoa(int(s)) + ")"
}
