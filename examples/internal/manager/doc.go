// Package manager holds what the controller commands of examples (the
// operator, capiipam and the provider) share, so that they agree: one
// flag vocabulary (-kubeconfig, -metrics-bind-address,
// -health-probe-bind-address, -leader-elect, ...), one kubeconfig
// resolution (the flag, $KUBECONFIG, the in-cluster config,
// ~/.kube/config), and one controller-runtime manager wiring (metrics
// server, /healthz and /readyz checks, leader election, cache namespace).
// The DHCP agent, which is not a controller-runtime manager, uses the
// flags it shares with them and the kubeconfig resolution.
//
// Every address flag takes "0" for off; "" is accepted as off too (the
// agent's former spelling).
package manager
