package conditions

// IsCacheReady is the reader-side check of a CacheReady condition: it reports
// true, with reason CacheBuilt, only when conds holds a CacheReady that is
// True, was written by the live epoch (storedEpoch, stored beside the
// condition, equals liveEpoch, which is not empty) and observed generation,
// the pool's current one. Anything else reads as not ready, with the first
// reason that applies:
//
//   - NotInitialized: there is no CacheReady condition;
//   - the condition's own Reason when it is False or Unknown (NotReady if
//     that reason is empty or invalid, or the status is not a valid one);
//   - OwnerRestarted: True, but written by another epoch (or liveEpoch is
//     empty), so by a process whose cache no longer exists;
//   - StaleGeneration: True, but for another generation.
//
// It cannot see deletion: a CacheMachine drops the cache of a pool being
// deleted without publishing anything, so a reader treats a pool with a
// deletion timestamp as not ready on its own. It does not allocate.
func IsCacheReady(conds []Condition, generation int64, storedEpoch, liveEpoch string) (ready bool, reason string) {
	c, ok := Find(conds, CacheReadyType)
	switch {
	case !ok:
		return false, ReasonNotInitialized
	case c.Status == ConditionFalse || c.Status == ConditionUnknown:
		return false, usableReason(c.Reason)
	case c.Status != ConditionTrue:
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
	if r == "" || len(r) > MaxReasonLength || !isReason(r) {
		return ReasonNotReady
	}
	return r
}
