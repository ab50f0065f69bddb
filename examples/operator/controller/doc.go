// Package controller holds the operator's reconcilers, which only
// translate between Kubernetes objects and vmnetkit's core packages:
//
//   - the IPPool reconciler keeps one ipam.Pool per IPPool in memory and
//     drives one cacheready.Machine per pool, writing the CacheReady
//     condition and the process's epoch into the pool's status;
//   - the VMNetworkConfig reconciler gives each NIC an address from its pool
//     (only while that pool's machine is Ready in this process), writes it
//     into the pool's status, then into the claim's status, and releases it
//     when the claim is deleted (finalizer);
//   - where the API server serves KubeVirt (ServesKubeVirt), the
//     VirtualMachine reconciler (SetupVirtualMachines) keeps one generated
//     VMNetworkConfig per VirtualMachine, and the IPPools' NetworkConflict
//     condition says when two pools name one network.
//
// # KubeVirt
//
// The VirtualMachine reconciler reads VMs and their instances through the
// read-only types of package kubevirt and never writes them. A VM's
// generated config has its name, a controller owner reference to it and the
// VirtualMachineLabel; it lists one NIC per interface on a Multus network
// that exactly one IPPool of the VM's namespace serves (networkKey reads an
// unqualified name in the VM's or the pool's namespace), named like the
// interface. A NIC's MAC is the one the running instance reports for the
// interface's name, else the spec's, else the one the config already
// gives that name; the operator invents none. A NIC keeps its address
// across stop/start and migration (same MAC), follows its name to a new MAC
// (the new NIC asks for the old MAC's address, which the claim reconciler
// releases first), and an interface in state absent keeps its NIC while the
// instance reports it. With no NIC left, or once its VM is gone or was
// recreated (another UID), the config is deleted and its finalizer frees its
// addresses; a restarted operator sees every generated config and deletes
// those whose VM is gone (the owner reference lets the garbage collector do
// it while the operator is down). A config of the VM's name that the
// operator did not generate is left alone. The NetworkReady condition
// is readiness.Evaluate of the instance's reports against the config's
// NICs.
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
//
// # Dual stack
//
// A pool with spec.ipv6 is cached as one poolSet of two ipam.Pools, rebuilt
// together (CacheReady covers both) and written together in one status
// write (status.allocated and status.ipv6.allocated). A NIC gets its IPv4
// address first, then its IPv6 address; when only the IPv6 part cannot give
// one, the NIC keeps its IPv4 address and the claim's Ready is False with
// reason IPv6Exhausted, IPv6CapacityLimited or IPv6AllocationFailed. The
// allocation limit applies to each part, and is half the operator's for a
// dual-stack pool (both parts share one status object).
//
// # Capacity
//
// One IPPool's status holds every allocation and must fit in one etcd
// object. A pool hands out at most Options.MaxAllocations addresses (or its
// spec.maxAllocations, if lower); its CapacityLimited condition says how many
// it has and turns True at the limit, and a claim that would need one more
// waits with Ready=False, reason CapacityLimited, and one Warning Event. If
// the API server refuses a status as too large (a limit set above what etcd
// holds), the pool says so (reason StatusTooLarge) and, until it is
// rebuilt, hands out no more addresses than its status held when it last
// fitted, rather than retry a write that cannot succeed. A pool whose
// status is already at the edge (written by someone else, or by a process
// with a higher limit), so that not even its CacheReady condition fits, gets
// one Warning Event (StatusTooLarge) and is not served; the refused write is
// not retried until the pool changes.
//
// # Metrics
//
// Per pool, in controller-runtime's registry (labels namespace and pool):
// vmnetkit_ippool_size_addresses, _used_addresses, _available_addresses,
// _max_allocations, _restore_problems, _cache_ready (0 or 1) and the counter
// vmnetkit_ippool_allocations_total (addresses of both families); for the
// IPv6 part of a dual-stack pool, vmnetkit_ippool_ipv6_size_addresses,
// _ipv6_used_addresses and _ipv6_available_addresses. A deleted pool's
// series are removed.
package controller
