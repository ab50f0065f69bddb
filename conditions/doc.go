// Package conditions sets Kubernetes-style status conditions with an injected
// clock, and decides the CacheReady condition of a controller that rebuilds an
// in-memory cache, so that a restarted process never trusts a True written by
// its predecessor.
//
// # Conditions
//
// Condition has exactly the fields and JSON form of the Kubernetes API's
// metav1.Condition, so an adapter converts with a field copy or a JSON round
// trip; the package itself imports nothing from Kubernetes. The functions are
// free functions over a []Condition:
//
//   - Set adds or replaces a condition, keeps the order of the others, moves
//     LastTransitionTime to now (whole seconds, UTC) only when Status
//     changes, and reports whether anything changed, so a controller skips a
//     status write that changes nothing and does not loop on its own writes.
//   - Find, Remove, IsTrue, IsFalse and IsUnknown (absent reads as Unknown).
//   - Validate applies the API server's rules and lists every violation.
//   - Summary derives one condition (Ready) from several, with
//     negative-polarity types and a reason and message that name what is
//     not good.
//
// Time is always a parameter: nothing here reads the clock.
//
// # CacheReady
//
// A controller that keeps a cache in memory (an address allocator rebuilt
// from a pool's snapshot) publishes CacheReady on the pool object. The
// condition outlives the process; the cache does not. CacheMachine is a pure
// state machine, one per pool, created with the epoch of the running process
// (a random ID made at start). Each Step takes an event (PoolObserved,
// BuildSucceeded, BuildFailed, GenerationChanged, CacheDropped, PoolPaused,
// PoolResumed, PoolDeleted; a pointer to one counts as the event itself) and
// returns the next machine and a CacheDecision:
// the condition to write with Set, the epoch to store beside it, and whether
// to build or drop the local cache. Nothing else decides.
//
// The adapter stores the epoch in the object's status next to the condition;
// readers call IsCacheReady with the live epoch, so a True written by a
// process that has since restarted reads as not ready (OwnerRestarted) until
// the new process has built its own cache and published True itself.
//
// Everything in the package is deterministic, allocation-light and safe for
// concurrent use by value: there is no shared state.
package conditions
