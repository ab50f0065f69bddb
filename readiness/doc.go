// Package readiness decides whether a VM's network is ready: every DHCP NIC
// has a usable address, or, without DHCP NICs, at least one usable address is
// known from the hypervisor or the Kubernetes Node. NICs are matched one by
// one, never counted.
//
// A Cluster API infrastructure provider calls [Evaluate] with the devices of
// its spec (see [ParseDevice] for Cluster API style strings), the NICs its
// hypervisor reports, the Node's addresses and the prefixes it knows to be
// virtual, and gets a [Verdict]: Ready, a Reason and Message for its
// condition, and per device what was credited, what was ignored and why.
//
// The rules a caller relies on are each documented where they are named:
// how a NIC is matched to a device at [Match]; the one table of addresses
// that are no host's own at [IgnoreReason]; the [Strict] policy (the zero
// Policy) and its invalid specs ([ReasonInvalidNetworkSpec]) at [Strict];
// the legacy [Counting] rule, reproduced exactly so that a provider can
// switch to this package first and to Strict second, and where it differs
// from Strict, at [Counting].
//
// Evaluate is pure: no I/O, no clock, no global state; the same Input gives
// the same Verdict, and no Input makes it panic.
package readiness
