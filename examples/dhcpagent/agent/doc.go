// Package agent is the DHCP server that serves the lease tables of one
// vmnetkit address pool, over DHCPv4 and DHCPv6. It knows DHCP and
// nothing of Kubernetes: a pool source delivers each version of the pool
// to [Agent.Apply], its one load (poolsource.Loads(a.Apply)), and the
// decisions are packages dhcp4's and dhcp6's, pure.
//
// What a caller relies on:
//
//   - One load builds both families' tables (the pool's IPv4 part and its
//     spec.ipv6 part) into one version, swapped in with one atomic store:
//     every reply, of either family, comes from exactly one version. A
//     pool whose spec is invalid is an error and leaves the version being
//     served; a bad entry or option is only left out, and reported.
//   - [Agent.Serve] (DHCPv4, a UDP socket) and [Agent.Serve6] (DHCPv6: an
//     AF_PACKET socket for clients' multicasts, a UDP one for relays) read
//     in one loop each, no goroutine per message; [Agent.Handle] answers
//     one DHCPv4 message. A steady-state DHCPv4 reply allocates nothing.
//   - No write waits: a reply the kernel has no room for is dropped and
//     counted; every line a packet can cause at level 0 is rate-limited.
//   - A DECLINE puts an address on probation only within the decline
//     window after this agent's (or a peer's, [WithPeers4]) binding ACK;
//     a RELEASE is logged. [WithDeclineHook] reports each accepted
//     DECLINE (the command records it as an Event on the IPPool).
//   - [Agent.Stats], [Agent.Stats6] and their collectors count what it
//     does; [Agent.Summarize] logs the counts.
//
// Files pair by family where the families differ: serve4.go and
// serve6.go (with loop.go), handle4.go (with respond4.go) and handle6.go,
// decline4.go and decline6.go, bindings4.go and bindings6.go (the decline
// windows), version4.go and version6.go (a version's per-family state),
// stats4.go and stats6.go; load.go, send.go and loglimit.go are shared.
//
// Why the DECLINE rules, the send rules and DHCPv6's choice of lease are
// what they are: docs/dhcpagent-design.md.
package agent
