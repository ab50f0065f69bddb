// Package provider is a thin Cluster API style infrastructure-machine adapter
// that embeds [readiness] and [conditions]: it reads a VMMachine (the API
// type in [github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1]: the
// desired network devices in spec.network.devices, the NICs the hypervisor
// reports), the Kubernetes Node of the same name, asks [readiness.Evaluate]
// whether the machine's network is up, and writes status.addresses and the
// VMProvisioned condition back — only when something changed, so the
// controller never loops on its own writes.
//
// The translation is pure and lives in free functions ([Devices],
// [ReportedNICs], [NodeAddrs], [Observe], [ApplyVerdict]); [Reconciler] is the
// controller-runtime glue around them. Cluster API itself is not a
// dependency: the API package's MachineAddress mirrors its type of the same
// name.
package provider
