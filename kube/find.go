package kube

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// FindMeta is conditions.Find on the API's conditions: it returns the first
// condition of type typ in conds, converted as FromMeta converts it (its
// LastTransitionTime in UTC), and true; or the zero Condition and false when
// conds has none of that type. It converts only the condition it returns and
// does not allocate.
//
// It returns the core's form because that is what a reconciler passes on:
// a cacheready.Observed's Stored condition, conditions.Validate, a Reason
// compared with the core's constants.
func FindMeta(conds []metav1.Condition, typ string) (conditions.Condition, bool) {
	for _, c := range conds {
		if c.Type == typ {
			return fromMeta(c), true
		}
	}
	return conditions.Condition{}, false
}
