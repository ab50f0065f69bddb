package kube

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// SetMeta is conditions.Set on the API's conditions: it adds c to conds or
// replaces the condition of c's type, moves LastTransitionTime to now (UTC,
// whole seconds) only when the Status changes, and reports whether anything
// changed, so that a reconciler skips a status write that changes nothing.
//
// When nothing changes, SetMeta returns conds itself and false. Otherwise it
// returns a new slice, converted with ToMeta (the other conditions' times
// are then in UTC, the same instants). It never writes to conds' backing
// array.
func SetMeta(conds []metav1.Condition, c conditions.Condition, now time.Time) ([]metav1.Condition, bool) {
	out, changed := conditions.Set(FromMeta(conds), c, now)
	if !changed {
		return conds, false
	}
	return ToMeta(out), true
}
