package capiipamtest

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// Objects the tests create and read, and their text in failure messages.

// PoolRef refers to a pool of kind.
func PoolRef(kind, name string) ipamv1.IPPoolReference {
	return ipamv1.IPPoolReference{APIGroup: v1alpha1.GroupVersion.Group, Kind: kind, Name: name}
}

// NewPool is a VMNetIPPool.
func NewPool(ns, name string, spec v1alpha1.PoolSpec) *v1alpha1.VMNetIPPool {
	return &v1alpha1.VMNetIPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
}

// NewClaim is a claim of the pool ref.
func NewClaim(ns, name string, ref ipamv1.IPPoolReference) *ipamv1.IPAddressClaim {
	return &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: ipamv1.IPAddressClaimSpec{PoolRef: ref}}
}

// ReadyCondition returns the claim's Ready condition, if any.
func ReadyCondition(c *ipamv1.IPAddressClaim) (metav1.Condition, bool) {
	for _, cond := range c.Status.Conditions {
		if cond.Type == ipamv1.IPAddressClaimReadyCondition {
			return cond, true
		}
	}
	return metav1.Condition{}, false
}

// StatusText prints a pool status for failure messages.
func StatusText(s v1alpha1.PoolStatus) string {
	out := fmt.Sprintf("epoch %q", s.CacheEpoch)
	if s.Addresses != nil {
		out += fmt.Sprintf(" %+v", *s.Addresses)
	}
	for _, c := range s.Conditions {
		out += fmt.Sprintf(" %s=%s/%s(%s)", c.Type, c.Status, c.Reason, c.Message)
	}
	return out
}

// MetaOf is ns/name.
func MetaOf(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }

// HasCondition reports whether conds has typ with status.
func HasCondition(conds []metav1.Condition, typ string, status metav1.ConditionStatus) bool {
	for _, c := range conds {
		if c.Type == typ {
			return c.Status == status
		}
	}
	return false
}
