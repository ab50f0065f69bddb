package controller

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/types"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// NewLock is newAddressLock for package controller_test: the address
// lock of addr in the pool of kind, namespace and name, held by holder.
func NewLock(kind, namespace, name string, addr netip.Addr, holder types.NamespacedName) *v1alpha1.VMNetIPAddressLock {
	return newAddressLock(poolKey{Kind: kind, Namespace: namespace, Name: name}, addr, holder)
}
