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
// leader not yet stopped) may each pick an address the other just took,
// and an informer cache may not show it yet, the API server decides: an
// allocation first creates a VMNetIPAddressLock whose name is derived from
// the pool and the address, which the API server creates once and refuses
// after (AlreadyExists). Only the process that created it (or one serving
// the same claim, which the lock names) creates the claim's IPAddress,
// committed from the start with the ipam.cluster.x-k8s.io/ProtectAddress
// finalizer, and then writes the claim's status.addressRef. The lock is
// deleted only after its IPAddress is being deleted, or when its holder is
// found to hold another address (then it protects nothing). IPAddresses
// created before the locks are counted from the informer cache; one of
// them not yet committed is committed the old way (lock, list its
// address's IPAddresses from the API server, keep it only if alone).
package controller
