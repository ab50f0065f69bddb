// Package manager holds what the controller commands of examples (the
// operator, capiipam and the provider) share beyond package command's
// flags and kubeconfig: the full set of those flags a controller takes
// (AddFlags) and one controller-runtime manager wiring (New: metrics
// server, /healthz and /readyz checks, leader election, cache namespace),
// with the RBAC markers of what that wiring needs, and the Setup options
// and defaults of the adapters with a pool cache, the operator and
// capiipam (ControllerOptions). The DHCP agent, which is not a
// controller-runtime manager, uses package command alone, and so links no
// controller-runtime.
package manager
