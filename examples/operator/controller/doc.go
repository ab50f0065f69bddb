// Package controller holds the operator's reconcilers, which only
// translate between Kubernetes objects and vmnetkit's core packages:
//
//   - the IPPool reconciler keeps one ipam.Pool per IPPool in memory (a
//     poolSet of one per family, in a poolEntry) and drives one
//     cacheready.Machine per pool, writing the CacheReady condition and the
//     process's epoch into the pool's status;
//   - the VMNetworkConfig reconciler gives each NIC an address from its pool
//     (only while that pool's machine is Ready in this process), written
//     into the pool's status (poolWriter, which batches the claims of one
//     moment into one write), then into the claim's status, and releases it
//     when the claim is deleted (finalizer);
//   - where the API server serves KubeVirt (ServesKubeVirt), the
//     VirtualMachine reconciler (SetupVirtualMachines) keeps one generated
//     VMNetworkConfig per VirtualMachine, and the IPPools' NetworkConflict
//     condition says when two pools name one network.
//
// The pool's status is the source of truth; every change is written with
// the resourceVersion the cache was built from, and a conflict rebuilds the
// cache from the API server (allocate.go). Dual stack, capacity and
// metrics are described where they are made: poolset.go, capacity.go,
// metrics.go.
//
// The VirtualMachine reconciler reads VMs and their instances through the
// read-only types of package kubevirt and never writes them. A VM's config
// lists one NIC per interface on a Multus network exactly one IPPool of its
// namespace serves, named like the interface, with the MAC the running
// instance reports, else the spec's, else the one the config gave that
// name (none invented); it is deleted with its VM, and its finalizer frees
// its addresses. NetworkReady is readiness.Evaluate of the instance's
// reports against the config's NICs.
//
// # Locking
//
// A poolEntry's fields are guarded by its mu. A method or function whose
// name ends in Locked needs its caller to hold mu; all the others take it
// themselves, and they are all in pool_entry_lock.go. A claim's flush holds
// mu across no API call and no sleep. The cache of entries
// (poolcache.Cache, shared with capiipam) guards only its map.
package controller
