package conditions_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// Set moves LastTransitionTime only when Status changes, and reports whether
// a status write is needed at all.
func ExampleSet() {
	clock := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var conds []conditions.Condition
	show := func(changed bool) {
		c, _ := conditions.Find(conds, "Ready")
		fmt.Printf("changed=%-5v %s/%s gen=%d since %s\n", changed, c.Status, c.Reason, c.ObservedGeneration, c.LastTransitionTime.Format(time.TimeOnly))
	}

	conds, changed := conditions.Set(conds, conditions.Condition{Type: "Ready", Status: conditions.ConditionFalse, ObservedGeneration: 1, Reason: "Waiting"}, clock)
	show(changed)

	clock = clock.Add(90 * time.Second)
	conds, changed = conditions.Set(conds, conditions.Condition{Type: "Ready", Status: conditions.ConditionFalse, ObservedGeneration: 2, Reason: "Waiting"}, clock)
	show(changed) // new generation, same status: the time stays

	conds, changed = conditions.Set(conds, conditions.Condition{Type: "Ready", Status: conditions.ConditionFalse, ObservedGeneration: 2, Reason: "Waiting"}, clock)
	show(changed) // nothing to write

	clock = clock.Add(1500 * time.Millisecond)
	conds, changed = conditions.Set(conds, conditions.Condition{Type: "Ready", Status: conditions.ConditionTrue, ObservedGeneration: 2, Reason: "Up"}, clock)
	show(changed) // status changed: the time moves, to whole seconds
	// Output:
	// changed=true  False/Waiting gen=1 since 10:00:00
	// changed=true  False/Waiting gen=2 since 10:00:00
	// changed=false False/Waiting gen=2 since 10:00:00
	// changed=true  True/Up gen=2 since 10:01:31
}

// Validate lists every rule the API server would reject a condition for.
func ExampleValidate() {
	err := conditions.Validate(conditions.Condition{
		Type:   "CacheReady",
		Status: "true",
		Reason: "cache built",
	})
	fmt.Println(errors.Is(err, conditions.ErrInvalid))
	fmt.Println(err)
	// Output:
	// true
	// conditions: validate "CacheReady": status "true": must be "True", "False" or "Unknown"
	// conditions: validate "CacheReady": lastTransitionTime (zero): is required
	// conditions: validate "CacheReady": reason "cache built": must start with a letter, contain only letters, digits and '_', ',' or ':', and end with a letter, digit or '_' (e.g. "MyReason", "Reason_A,ReasonB")
}

// Summary derives Ready from a positive and a negative-polarity condition.
func ExampleSummary() {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	conds := []conditions.Condition{
		{Type: "CacheReady", Status: conditions.ConditionFalse, ObservedGeneration: 3, LastTransitionTime: at,
			Reason: "OwnerRestarted", Message: "rebuilding the cache"},
		{Type: "Stalled", Status: conditions.ConditionTrue, ObservedGeneration: 3, LastTransitionTime: at,
			Reason: "Backoff", Message: "agent unreachable"},
	}
	ready := conditions.Summary("Ready", 3, conds,
		conditions.Term{Type: "CacheReady"},
		conditions.Term{Type: "Stalled", Negative: true, Optional: true},
		conditions.Term{Type: "Synced"},
	)
	fmt.Println(ready.Status, ready.Reason)
	fmt.Println(ready.Message)
	// Output:
	// False OwnerRestarted
	// CacheReady is False (OwnerRestarted): rebuilding the cache; Stalled is True (Backoff): agent unreachable; Synced not reported
}
