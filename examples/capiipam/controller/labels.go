package controller

import (
	"encoding/hex"
	"net/netip"
)

// Finalizers and labels, shared with the Cluster API in-cluster provider
// where it has one, so that IPAddresses it created are read as committed.
const (
	// ClaimFinalizer is the in-cluster provider's claim finalizer, which
	// older versions of this provider put on claims too. This one puts it
	// on none (the IPAddress's owner reference and AddressFinalizer drive
	// the release); on a claim that carries it, it is removed once the
	// claim's IPAddress is released.
	ClaimFinalizer = "ipam.cluster.x-k8s.io/ReleaseAddress"

	// AddressFinalizer marks an IPAddress as committed (see the package
	// doc; this provider creates its IPAddresses with it, under their
	// address's lock) and keeps it, and its address, while its claim
	// exists and, once the claim is gone, until it is released.
	AddressFinalizer = "ipam.cluster.x-k8s.io/ProtectAddress"

	// PoolFinalizer keeps a pool while IPAddresses of it exist.
	PoolFinalizer = "ipam.vmnetkit.dev/protect-pool"

	// AddressLabel holds an IPAddress's address in label form (see
	// addressLabel), so that the API server can list the IPAddresses of one
	// address (to commit one created before the locks).
	AddressLabel = "ipam.vmnetkit.dev/address"

	// PausedAnnotation pauses a claim, a pool or a Cluster.
	PausedAnnotation = "cluster.x-k8s.io/paused"

	// ClusterNameLabel names a claim's Cluster when spec.clusterName is empty.
	ClusterNameLabel = "cluster.x-k8s.io/cluster-name"
)

// addressLabel returns a as a label value: an IPv4 address as written
// (10.0.0.7), an IPv6 address as its 32 hex digits (a label value holds no
// colon).
func addressLabel(a netip.Addr) string {
	if a.Is4() {
		return a.String()
	}
	b := a.As16()
	return hex.EncodeToString(b[:])
}
