package kube

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// FromMeta converts the API's conditions to the core's, field for field, in
// the same order. LastTransitionTime is returned in UTC (the same instant),
// so that a condition read from the API server compares equal with == to the
// one the core's Set or JSON decoding makes. Nil stays nil and empty stays
// empty; the result never shares memory with in.
func FromMeta(in []metav1.Condition) []conditions.Condition {
	if in == nil {
		return nil
	}
	out := make([]conditions.Condition, len(in))
	for i, c := range in {
		out[i] = fromMeta(c)
	}
	return out
}

// fromMeta converts one condition, as FromMeta and FindMeta convert it.
func fromMeta(c metav1.Condition) conditions.Condition {
	return conditions.Condition{
		Type:               c.Type,
		Status:             conditions.Status(c.Status),
		ObservedGeneration: c.ObservedGeneration,
		LastTransitionTime: c.LastTransitionTime.UTC(),
		Reason:             c.Reason,
		Message:            c.Message,
	}
}

// ToMeta converts the core's conditions to the API's, field for field, in
// the same order; LastTransitionTime is kept as it is (the API server stores
// it in whole seconds). Nil stays nil and empty stays empty; the result
// never shares memory with in.
func ToMeta(in []conditions.Condition) []metav1.Condition {
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
