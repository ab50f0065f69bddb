package cacheready

import "github.com/vmnetkit/vmnetkit/conditions"

// IsReady is the reader-side check of a CacheReady condition: it reports
// true, with reason CacheBuilt, only when conds holds a CacheReady that is
// True, was written by the live epoch (storedEpoch, stored beside the
// condition, equals liveEpoch, which is not empty) and observed generation,
// the object's current one. Anything else reads as not ready, with the first
// reason that applies:
//
//   - NotInitialized: there is no CacheReady condition;
//   - the condition's own Reason when it is False or Unknown (NotReady if
//     that reason is empty or invalid, or the status is not a valid one);
//   - OwnerRestarted: True, but written by another epoch (or liveEpoch is
//     empty), so by a process whose cache no longer exists;
//   - StaleGeneration: True, but for another generation.
//
// It cannot see deletion: a Machine drops the cache of an object being
// deleted without publishing anything, so a reader treats an object with a
// deletion timestamp as not ready on its own. It does not allocate.
func IsReady(conds []conditions.Condition, generation int64, storedEpoch, liveEpoch string) (ready bool, reason string) {
	c, ok := conditions.Find(conds, Type)
	switch {
	case !ok:
		return false, ReasonNotInitialized
	case c.Status == conditions.ConditionFalse || c.Status == conditions.ConditionUnknown:
		return false, usableReason(c.Reason)
	case c.Status != conditions.ConditionTrue:
		return false, ReasonNotReady
	case liveEpoch == "" || storedEpoch != liveEpoch:
		return false, ReasonOwnerRestarted
	case c.ObservedGeneration != generation:
		return false, ReasonStaleGeneration
	}
	return true, ReasonCacheBuilt
}

// usableReason returns r if it is a valid condition reason, else NotReady.
func usableReason(r string) string {
	if !conditions.ValidReason(r) {
		return ReasonNotReady
	}
	return r
}
