// Package manager holds what the controller commands of examples (the
// operator, capiipam and the provider) share beyond package command's
// flags and kubeconfig: the full set of those flags a controller takes
// (AddFlags) and one controller-runtime manager wiring (New: metrics
// server, /healthz and /readyz checks, leader election, cache namespace),
// with the RBAC markers of what that wiring needs. The DHCP agent, which is
// not a controller-runtime manager, uses package command alone, and so
// links no controller-runtime.
package manager
