package controller

import (
	"encoding/hex"
	"net/netip"
)

// Finalizers and labels, shared with the Cluster API in-cluster provider
// where it has one, so that IPAddresses it created are read as committed.
const (
	// ClaimFinalizer is on every claim this provider serves: the claim's
	// IPAddress is deleted before the claim goes.
	ClaimFinalizer = "ipam.cluster.x-k8s.io/ReleaseAddress"

	// AddressFinalizer marks an IPAddress as committed (see the package
	// doc; this provider creates its IPAddresses with it, under their
	// address's lock) and keeps it while its claim exists.
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
