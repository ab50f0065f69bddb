// Package controller holds the operator's two reconcilers, which only
// translate between Kubernetes objects and vmnetkit's core packages:
//
//   - the IPPool reconciler keeps one ipam.Pool per IPPool in memory and
//     drives one cacheready.Machine per pool, writing the CacheReady
//     condition and the process's epoch into the pool's status;
//   - the VMNetworkConfig reconciler gives each NIC an address from its pool
//     (only while that pool's machine is Ready in this process), writes it
//     into the pool's status, then into the claim's status, and releases it
//     when the claim is deleted (finalizer).
//
// # Consistency
//
// The pool's status in the API server is the source of truth; the in-memory
// pool is a cache of one resourceVersion of it. Every change is made on a
// Clone, written with that resourceVersion (optimistic concurrency), and
// swapped in only once the write succeeded. On a conflict, the pool is
// re-read from the API server (not the informer cache), rebuilt from the fresh
// status with ipam.Restore, and the change re-applied, so an address that a
// newer status gives to another MAC is never handed out, even by two
// processes that both believe they lead.
package controller
