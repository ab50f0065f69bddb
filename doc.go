// Package vmnetkit is the pure decision logic of VM network controllers,
// packaged so that Kubernetes operators and Cluster API infrastructure
// providers can import it instead of re-writing it.
//
// The module holds five side-effect-free packages. None of them does I/O,
// starts a goroutine, reads the clock or logs; the same input always gives the
// same output.
//
//   - [github.com/vmnetkit/vmnetkit/ipam] allocates addresses to VM NICs from
//     an IPv4 or IPv6 CIDR with a start/end range, exclusions and reserved
//     addresses, with memory that follows what is allocated, and snapshots and
//     restores a pool exactly.
//   - [github.com/vmnetkit/vmnetkit/leasestore] rebuilds a DHCP agent's lease
//     table from a pool snapshot and plans the change between two tables.
//   - [github.com/vmnetkit/vmnetkit/conditions] sets Kubernetes-style status
//     conditions with an injected clock.
//   - [github.com/vmnetkit/vmnetkit/conditions/cacheready] decides CacheReady
//     for a controller that rebuilds an in-memory cache after a restart.
//   - [github.com/vmnetkit/vmnetkit/readiness] decides whether a VM's network
//     is ready, NIC by NIC.
//
// The conversions to Kubernetes API types (metav1.Condition, a process
// epoch) are the separate module github.com/vmnetkit/vmnetkit/kube, which
// requires only this module and k8s.io/apimachinery. Adapters that embed
// these packages in real controllers (an IPPool operator on
// controller-runtime, a Cluster API IPAM provider, a Cluster API style
// infrastructure provider, a DHCPv4 agent) live in the separate module
// github.com/vmnetkit/vmnetkit/examples.
package vmnetkit
