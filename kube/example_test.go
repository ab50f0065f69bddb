package kube_test

import (
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/kube"
)

// SetMeta is the call before a status write: it says whether there is
// anything to write, and moves the transition time only when the status
// changes.
func ExampleSetMeta() {
	clock := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var status []metav1.Condition // an object's status.conditions
	show := func(changed bool) {
		c := status[0]
		fmt.Printf("write=%-5v %s/%s gen=%d since %s\n", changed, c.Status, c.Reason, c.ObservedGeneration, c.LastTransitionTime.Format(time.TimeOnly))
	}

	status, changed := kube.SetMeta(status, conditions.Condition{Type: "Ready", Status: conditions.ConditionFalse, ObservedGeneration: 1, Reason: "Waiting"}, clock)
	show(changed)

	clock = clock.Add(time.Minute)
	status, changed = kube.SetMeta(status, conditions.Condition{Type: "Ready", Status: conditions.ConditionFalse, ObservedGeneration: 1, Reason: "Waiting"}, clock)
	show(changed) // nothing to write

	clock = clock.Add(1500 * time.Millisecond)
	status, changed = kube.SetMeta(status, conditions.Condition{Type: "Ready", Status: conditions.ConditionTrue, ObservedGeneration: 1, Reason: "Allocated"}, clock)
	show(changed) // the status changed: the time moves, to whole seconds
	// Output:
	// write=true  False/Waiting gen=1 since 10:00:00
	// write=false False/Waiting gen=1 since 10:00:00
	// write=true  True/Allocated gen=1 since 10:01:01
}

// What the API server stores is metav1.Condition's JSON, which keeps the
// transition time in whole seconds; every other field comes back as it was.
func ExampleFromMeta() {
	written := []conditions.Condition{{
		Type:               "Ready",
		Status:             conditions.ConditionTrue,
		ObservedGeneration: 2,
		LastTransitionTime: time.Date(2026, 12, 2, 10, 0, 0, 750_000_000, time.UTC),
		Reason:             "Allocated",
		Message:            "2 NICs have their address",
	}}
	b, _ := json.Marshal(kube.ToMeta(written))
	fmt.Println(string(b))

	var stored []metav1.Condition
	_ = json.Unmarshal(b, &stored)
	read := kube.FromMeta(stored)
	fmt.Println(read[0].LastTransitionTime.Format(time.RFC3339Nano), read[0].Reason, read[0].Message)
	// Output:
	// [{"type":"Ready","status":"True","observedGeneration":2,"lastTransitionTime":"2026-12-02T10:00:00Z","reason":"Allocated","message":"2 NICs have their address"}]
	// 2026-12-02T10:00:00Z Allocated 2 NICs have their address
}

// FindMeta reads one condition of an object's status in the core's form,
// for instance the CacheReady condition a cacheready.Machine observes.
func ExampleFindMeta() {
	status := []metav1.Condition{
		{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Allocated"},
		{Type: "CacheReady", Status: metav1.ConditionFalse, ObservedGeneration: 4, Reason: "OwnerRestarted"},
	}
	if c, ok := kube.FindMeta(status, "CacheReady"); ok {
		fmt.Println(c.Status, c.Reason, c.ObservedGeneration)
	}
	_, ok := kube.FindMeta(status, "Paused")
	fmt.Println("Paused found:", ok)
	// Output:
	// False OwnerRestarted 4
	// Paused found: false
}
