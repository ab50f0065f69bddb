// Package readiness decides whether a VM's network is ready: every DHCP NIC
// has a usable address, or, without DHCP NICs, at least one usable address is
// known from the hypervisor or the Kubernetes Node. NICs are matched one by
// one, never counted.
package readiness
