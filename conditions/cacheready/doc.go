// Package cacheready decides the CacheReady condition of a controller that
// keeps a cache in memory, rebuilt from an object's state (an address
// allocator rebuilt from a pool's snapshot is one example), so that a
// restarted process never trusts a True written by its predecessor.
//
// The condition outlives the process; the cache does not. Machine is a pure
// state machine, one per object whose cache it describes, created with New
// and the epoch of the running process (a random ID made at start). Each
// Step takes an Event (Observed, BuildSucceeded, BuildFailed,
// GenerationChanged, Dropped, Paused, Resumed, Deleted; a pointer to one
// counts as the event itself) and returns the next machine and a Decision:
// the condition to write with conditions.Set, the epoch to store beside it,
// and whether to build or drop the local cache. Nothing else decides.
//
// Driver carries out those decisions, the loop every adapter writes around
// Step (write the condition with the epoch, drop or build the cache, feed
// the build's result back), with the adapter's side effects as its fields:
// the package itself still does no I/O.
//
// The adapter stores the epoch in the object's status next to the condition;
// readers call IsReady with the live epoch, so a True written by a process
// that has since restarted reads as not ready (OwnerRestarted) until the new
// process has built its own cache and published True itself.
//
// The conditions are those of package conditions
// (github.com/vmnetkit/vmnetkit/conditions). Everything here is
// deterministic, allocation-light and safe for concurrent use by value:
// there is no shared state, no I/O and no clock.
package cacheready
