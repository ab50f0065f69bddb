package controller

import (
	"fmt"
	"net/netip"

	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// Reasons of a Ready=False of a claim that asks for an address (one
// pre-allocated to it, or its v1alpha1.AddressAnnotation's): it gets that
// address or none, never another.
const (
	// ReasonAddressInUse: another holds the address (an IPAddress, its
	// lock, or a pre-allocation to another claim); the claim is tried
	// again every RetryWaiting and gets the address once it is released.
	ReasonAddressInUse = "AddressInUse"
	// ReasonAddressNotInPool: the address is not in the pool's
	// spec.addresses.
	ReasonAddressNotInPool = "AddressNotInPool"
	// ReasonAddressExcluded: spec.addresses lists the address, but the
	// pool never hands it out: it is excluded, the gateway, or one of the
	// subnet's reserved addresses. The message says which.
	ReasonAddressExcluded = "AddressExcluded"
	// ReasonAddressInvalid: the annotation is not an address.
	ReasonAddressInvalid = "AddressInvalid"
	// ReasonAddressConflict: the annotation asks for another address than
	// the one pre-allocated to the claim.
	ReasonAddressConflict = "AddressConflict"
)

// askedAddress returns the address claim's v1alpha1.AddressAnnotation
// asks for, the zero Addr when it has none, or the failure of one that
// does not parse.
func askedAddress(claim *ipamv1.IPAddressClaim) (netip.Addr, *failure) {
	text, ok := claim.Annotations[v1alpha1.AddressAnnotation]
	if !ok {
		return netip.Addr{}, nil
	}
	a, err := ipam.ParseAddr(text)
	if err != nil {
		return netip.Addr{}, &failure{ReasonAddressInvalid, fmt.Sprintf("annotation %s: %v", v1alpha1.AddressAnnotation, err)}
	}
	return a, nil
}

// waits reports whether a claim that failed with reason is tried again
// after RetryWaiting: what it waits for (a build, an address freed) is
// no change of the claim or of its pool's spec.
func waits(reason string) bool {
	return reason == ReasonPoolExhausted || reason == ReasonPoolNotReady || reason == ReasonAddressInUse
}
