package conditions_test

import (
	"errors"
	"fmt"
	"strings"
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

// IsCacheReady is what a reader checks before using the cache: True alone is
// not enough, the epoch stored beside it must be the live process's.
func ExampleIsCacheReady() {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	conds := []conditions.Condition{{
		Type: conditions.CacheReadyType, Status: conditions.ConditionTrue, ObservedGeneration: 3,
		LastTransitionTime: at, Reason: conditions.ReasonCacheBuilt,
	}}
	fmt.Println(conditions.IsCacheReady(conds, 3, "epoch-a1", "epoch-a1"))
	fmt.Println(conditions.IsCacheReady(conds, 3, "epoch-a1", "epoch-b2")) // the process restarted
	fmt.Println(conditions.IsCacheReady(conds, 4, "epoch-a1", "epoch-a1")) // the pool moved on
	fmt.Println(conditions.IsCacheReady(nil, 3, "", "epoch-a1"))
	// Output:
	// true CacheBuilt
	// false OwnerRestarted
	// false StaleGeneration
	// false NotInitialized
}

// A controller restart: the True written by process A is not trusted by
// process B until B has built its own cache.
func ExampleCacheMachine() {
	clock := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var status []conditions.Condition // the pool's persisted status
	var storedEpoch string            // stored beside it
	step := func(m conditions.CacheMachine, e conditions.CacheEvent) conditions.CacheMachine {
		next, d := m.Step(e)
		if d.Publish != nil {
			status, _ = conditions.Set(status, *d.Publish, clock)
			storedEpoch = d.Epoch
		}
		c, _ := conditions.Find(status, conditions.CacheReadyType)
		event := strings.TrimPrefix(fmt.Sprintf("%T", e), "conditions.")
		fmt.Printf("%s %-14s -> %-8v CacheReady=%-5s %-14s stored epoch=%s build=%v\n",
			m.Epoch(), event, next.State(), c.Status, c.Reason, storedEpoch, d.Build)
		clock = clock.Add(time.Second)
		return next
	}
	observe := func(m conditions.CacheMachine) conditions.CacheMachine {
		c, ok := conditions.Find(status, conditions.CacheReadyType)
		e := conditions.PoolObserved{Generation: 1, StoredEpoch: storedEpoch}
		if ok {
			e.Stored = &c
		}
		return step(m, e)
	}

	a := conditions.NewCacheMachine("epoch-a1")
	a = observe(a)
	a = step(a, conditions.BuildSucceeded{Generation: 1})
	_ = a // process A exits; its cache is gone, its True stays in the status

	b := conditions.NewCacheMachine("epoch-b2")
	fmt.Println(conditions.IsCacheReady(status, 1, storedEpoch, b.Epoch()))
	b = observe(b)
	b = step(b, conditions.BuildSucceeded{Generation: 1})
	fmt.Println(conditions.IsCacheReady(status, 1, storedEpoch, b.Epoch()))
	// Output:
	// epoch-a1 PoolObserved   -> NotBuilt CacheReady=False NotInitialized stored epoch=epoch-a1 build=true
	// epoch-a1 BuildSucceeded -> Ready    CacheReady=True  CacheBuilt     stored epoch=epoch-a1 build=false
	// false OwnerRestarted
	// epoch-b2 PoolObserved   -> NotBuilt CacheReady=False OwnerRestarted stored epoch=epoch-b2 build=true
	// epoch-b2 BuildSucceeded -> Ready    CacheReady=True  CacheBuilt     stored epoch=epoch-b2 build=false
	// true CacheBuilt
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
