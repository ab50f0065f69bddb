package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// fromMeta converts the API's conditions to the core's, field for field.
func fromMeta(in []metav1.Condition) []conditions.Condition {
	if in == nil {
		return nil
	}
	out := make([]conditions.Condition, len(in))
	for i, c := range in {
		out[i] = conditions.Condition{
			Type:               c.Type,
			Status:             conditions.Status(c.Status),
			ObservedGeneration: c.ObservedGeneration,
			LastTransitionTime: c.LastTransitionTime.Time,
			Reason:             c.Reason,
			Message:            c.Message,
		}
	}
	return out
}

// toMeta converts the core's conditions to the API's, field for field.
func toMeta(in []conditions.Condition) []metav1.Condition {
	if in == nil {
		return nil
	}
	out := make([]metav1.Condition, len(in))
	for i, c := range in {
		out[i] = metav1.Condition{
			Type:               c.Type,
			Status:             metav1.ConditionStatus(c.Status),
			ObservedGeneration: c.ObservedGeneration,
			LastTransitionTime: metav1.NewTime(c.LastTransitionTime),
			Reason:             c.Reason,
			Message:            c.Message,
		}
	}
	return out
}

// storedCacheReady returns the CacheReady condition stored in conds, or nil.
func storedCacheReady(conds []metav1.Condition) *conditions.Condition {
	c, ok := conditions.Find(fromMeta(conds), conditions.CacheReadyType)
	if !ok {
		return nil
	}
	return &c
}
