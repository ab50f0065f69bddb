// Package controller holds the reconcilers of vmnetkit's Cluster API IPAM
// provider. They only translate between Kubernetes objects and vmnetkit's
// core packages:
//
//   - the pool reconciler (one per kind, VMNetIPPool and GlobalVMNetIPPool)
//     keeps one ipam.Pool per pool object in memory, built from the informer
//     cache of the pool's IPAddresses with ipam.Restore and guarded by one
//     cacheready.Machine per pool, whose CacheReady condition and process
//     epoch it writes into the pool's status with the address counts;
//   - the claim reconciler answers each IPAddressClaim whose poolRef names
//     one of those kinds with an IPAddress of the claim's name, and deletes
//     it (after the pool's reuse grace period) when the claim goes.
//
// # Consistency
//
// The IPAddress objects are the source of truth; there is no other record
// of an allocation. The in-memory pool is a cache of them that picks the
// candidate address. Because two processes (a split brain, or an old
// leader not yet stopped) may each pick an address the other just took, an
// allocation is committed in three steps: create the IPAddress; list,
// straight from the API server, every IPAddress carrying the same address
// label in the pool; if there is another, delete ours (with its
// resourceVersion as a precondition) and pick again; if not, commit by
// adding the ipam.cluster.x-k8s.io/ProtectAddress finalizer (an update with
// the resourceVersion as a precondition). Only then is the claim's
// status.addressRef written. An IPAddress without the finalizer is never
// reported, and one with it is never deleted by this check. Two committed
// IPAddresses with one address would each have been listed after their own
// create and before the other's, which no order of events allows.
package controller
