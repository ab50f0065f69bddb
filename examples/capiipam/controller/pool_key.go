package controller

import (
	"strings"

	"k8s.io/apimachinery/pkg/types"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// poolKey names a pool object: Namespace is empty for a GlobalVMNetIPPool.
type poolKey struct {
	Kind      string
	Namespace string
	Name      string
}

// name returns key as a NamespacedName.
func (k poolKey) name() types.NamespacedName {
	return types.NamespacedName{Namespace: k.Namespace, Name: k.Name}
}

// String returns "Kind namespace/name" or "Kind name".
func (k poolKey) String() string {
	return strings.TrimSpace(k.Kind + " " + k.name().String())
}

// poolOf returns the pool an IPAddress names, or the zero key when it
// names no pool of this provider.
func poolOf(ip *ipamv1.IPAddress) poolKey {
	ref := ip.Spec.PoolRef
	if ref.APIGroup != v1alpha1.GroupVersion.Group {
		return poolKey{}
	}
	switch ref.Kind {
	case v1alpha1.PoolKind:
		return poolKey{Kind: ref.Kind, Namespace: ip.Namespace, Name: ref.Name}
	case v1alpha1.GlobalPoolKind:
		return poolKey{Kind: ref.Kind, Name: ref.Name}
	}
	return poolKey{}
}

// indexValue is the value of addressPoolIndex and claimPoolIndex: the
// pool's kind and name (its namespace is the object's own).
func indexValue(kind, name string) string { return kind + "/" + name }
