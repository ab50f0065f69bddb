// Package e2e holds the end-to-end test of the whole chain under faults
// (issue 34): a real kube-apiserver and etcd, the operator's binary, the
// DHCP agent's binary in API-server mode inside a network namespace, and
// real DHCP clients (ISC dhclient for DHCPv4 and DHCPv6, busybox udhcpc,
// dhcpcd) in other namespaces on one bridged segment. An IPPool and one
// VMNetworkConfig per client go in; every client binds the address the
// pool's status gives its MAC and keeps renewing an 8-second lease (T1
// 4 s) while the test injects faults, one case after another on the same
// setup: the operator killed (SIGKILL) in a burst of new configs, the
// agent killed and restarted, the API server stopped for 60 s, the agent
// restarted while the API server is down (it serves its last-good copy),
// a pool changed while the agent is down; then, with two agents on the
// segment (-server-ip iface, -peers4, a 24 s lease: see twoagents), a
// second agent added, clients restarted through DISCOVER and two OFFERs,
// one agent killed, and a genuine and a forged DECLINE.
//
// After every case it asserts the invariants, from what the clients saw
// on their own links (a packet capture in each client's namespace) and
// what their hook scripts and kernels hold: no client ever holds an
// address other than its pool's, no address is on two clients, every
// renewal that reached a running agent is answered, and the bound state
// (the pool's status, the configs' status) is not rewritten by a restart.
// It logs a table of the counts per case (renewals sent and answered,
// addresses held before and after, duplicate replies).
//
// The test needs root (network namespaces) and KUBEBUILDER_ASSETS; with
// CI set it fails, never skips, when it cannot build the namespaces or
// start the clients. -e2e.random=N adds N randomized fault sequences
// (their seed printed; -e2e.seed repeats them):
//
//	go test -count=1 -v -run TestE2E ./dhcpagent/e2e/ -args -e2e.random=20 -e2e.seed=1
//
// There is no non-test code: this file only documents the package.
package e2e
