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
//     one of those kinds with an IPAddress of the claim's name;
//   - the address reconciler releases an IPAddress once its claim is gone
//     (after the pool's reuse grace period).
//
// # Release without a claim finalizer
//
// The contract lets a provider put a finalizer on the claim ("you probably
// need one"); this provider puts none, and so answers a claim with three
// writes (the lock, the IPAddress, the claim's status) where the
// finalizer would make four. The IPAddress carries what the release needs:
// the claim as controller owner (blockOwnerDeletion), the pool as a second
// owner, AddressFinalizer (ProtectAddress), the address, the pool, and
// the claim's Cluster in its cluster-name label. A deleted claim goes at
// once; its IPAddress stays, held by AddressFinalizer, and with it the
// address (in the lock, in every process's pool, and in a rebuild, which
// counts every IPAddress). The address reconciler then deletes an
// IPAddress whose claim owner is gone (read from the API server, by UID:
// a claim made again under the same name is not the owner), as the
// garbage collector does, so that the release needs none; once the
// IPAddress is being deleted (by that, by the collector, by anyone) and
// its claim is gone, it waits out the pool's reuse grace period counted
// from the IPAddress's deletion timestamp (kept by the API server, so a
// restart does not restart the wait) and the pause of the Cluster its
// label names (a Cluster that is gone pauses nothing), deletes the lock
// (with its UID as a precondition), and removes AddressFinalizer. The
// informer's delete event frees the address in memory.
//
// Every IPAddress event from the informer, those of its initial list
// included, is looked at, so IPAddresses whose claims went while no
// process ran are released at the next start; the look costs no request
// while the claim is in the informer cache. A claim seen being deleted
// (held by another finalizer: the collector's foregroundDeletion, or
// ClaimFinalizer, which older versions of this provider and the in-cluster
// provider put on claims) is released by the claim reconciler as before,
// the grace period counted from the claim's deletion timestamp, and
// ClaimFinalizer, if there, removed after. A claim made again under the
// name of one whose IPAddress is still held waits (Ready=False) for that
// IPAddress to go. An IPAddress being deleted while its claim lives is
// kept: AddressFinalizer guards it against an accidental delete.
//
// What the finalizer would have given and this gives up: a claim no
// longer lingers until its address is released, so whoever deleted it
// cannot wait on the claim for that; they can wait on the IPAddress
// (which is what holds the address). A claim deleted between its lock and
// its IPAddress gets the IPAddress anyway, owned by a UID that is gone,
// which is then released like any other. A process stopped between a lock
// and its IPAddress leaves the lock, which stays (its holder may be a
// create in flight) until a claim of the holder's name takes it again,
// the pool goes, or someone deletes it; meanwhile claims take other
// addresses, and try that one again only when the pool is exhausted and
// a resync is due, and a claim that finds it a minute old records a
// Warning Event (LockWithoutHolder) on the pool that names it
// (TestLeftoverLocks).
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
// deleted only while its IPAddress is being deleted (before
// AddressFinalizer goes: an IPAddress being deleted whose lock is gone
// holds nothing), or when its holder is found to hold another address
// (then it protects nothing). IPAddresses
// created before the locks are counted from the informer cache; one of
// them not yet committed is committed the old way (lock, list its
// address's IPAddresses from the API server, keep it only if alone).
package controller
