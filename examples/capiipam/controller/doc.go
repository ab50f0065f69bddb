// Package controller holds the reconcilers of vmnetkit's Cluster API IPAM
// provider. They only translate between Kubernetes objects and vmnetkit's
// core packages:
//
//   - the pool reconciler (one per kind, VMNetIPPool and GlobalVMNetIPPool)
//     keeps one ipam.Pool per pool object in memory (a poolEntry), built
//     from the informer cache of the pool's IPAddresses with ipam.Restore
//     and guarded by one cacheready.Machine, whose CacheReady condition and
//     process epoch it writes into the pool's status with the counts;
//   - the claim reconciler answers each IPAddressClaim whose poolRef names
//     one of those kinds with an IPAddress of the claim's name: the
//     address spec.preAllocations gives the claim, else the one its
//     v1alpha1.AddressAnnotation asks for, else any; an asked-for one or
//     none (pool_entry_pre.go, pool_entry_reserve.go);
//   - the address reconciler releases an IPAddress once its claim is gone,
//     after the pool's reuse grace period (releaser, which the claim
//     reconciler shares for a claim seen being deleted).
//
// The IPAddresses are the source of truth; the in-memory pool only picks
// candidates. An address is an IPAddress's once its address lock, a
// VMNetIPAddressLock named after the pool and the address, is created:
// the API server creates a name once, so two processes (a split brain)
// never hand out one address twice (address_lock.go). Claims carry no
// finalizer of this provider: an IPAddress holds its address until it is
// released (release.go).
//
// # Locking
//
// A poolEntry's fields are guarded by its mu. A method whose name ends in
// Locked needs its caller to hold mu; all the others take it themselves,
// and they are all in pool_entry_lock.go. mu is held across no API call
// but the CacheReady writes of a build. The cache of entries
// (poolcache.Cache) guards only its map.
package controller
