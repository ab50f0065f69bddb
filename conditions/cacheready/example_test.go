package cacheready_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
)

// IsReady is what a reader checks before using the cache: True alone is
// not enough, the epoch stored beside it must be the live process's.
func ExampleIsReady() {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	conds := []conditions.Condition{{
		Type: cacheready.Type, Status: conditions.ConditionTrue, ObservedGeneration: 3,
		LastTransitionTime: at, Reason: cacheready.ReasonCacheBuilt,
	}}
	fmt.Println(cacheready.IsReady(conds, 3, "epoch-a1", "epoch-a1"))
	fmt.Println(cacheready.IsReady(conds, 3, "epoch-a1", "epoch-b2")) // the process restarted
	fmt.Println(cacheready.IsReady(conds, 4, "epoch-a1", "epoch-a1")) // the object moved on
	fmt.Println(cacheready.IsReady(nil, 3, "", "epoch-a1"))
	// Output:
	// true CacheBuilt
	// false OwnerRestarted
	// false StaleGeneration
	// false NotInitialized
}

// A controller restart: the True written by process A is not trusted by
// process B until B has built its own cache.
func ExampleMachine() {
	clock := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var status []conditions.Condition // the object's persisted status
	var storedEpoch string            // stored beside it
	step := func(m cacheready.Machine, e cacheready.Event) cacheready.Machine {
		next, d := m.Step(e)
		if d.Publish != nil {
			status, _ = conditions.Set(status, *d.Publish, clock)
			storedEpoch = d.Epoch
		}
		c, _ := conditions.Find(status, cacheready.Type)
		event := strings.TrimPrefix(fmt.Sprintf("%T", e), "cacheready.")
		fmt.Printf("%s %-14s -> %-8v CacheReady=%-5s %-14s stored epoch=%s build=%v\n",
			m.Epoch(), event, next.State(), c.Status, c.Reason, storedEpoch, d.Build)
		clock = clock.Add(time.Second)
		return next
	}
	observe := func(m cacheready.Machine) cacheready.Machine {
		c, ok := conditions.Find(status, cacheready.Type)
		e := cacheready.Observed{Generation: 1, StoredEpoch: storedEpoch}
		if ok {
			e.Stored = &c
		}
		return step(m, e)
	}

	a := cacheready.New("epoch-a1")
	a = observe(a)
	a = step(a, cacheready.BuildSucceeded{Generation: 1})
	_ = a // process A exits; its cache is gone, its True stays in the status

	b := cacheready.New("epoch-b2")
	fmt.Println(cacheready.IsReady(status, 1, storedEpoch, b.Epoch()))
	b = observe(b)
	b = step(b, cacheready.BuildSucceeded{Generation: 1})
	fmt.Println(cacheready.IsReady(status, 1, storedEpoch, b.Epoch()))
	// Output:
	// epoch-a1 Observed       -> NotBuilt CacheReady=False NotInitialized stored epoch=epoch-a1 build=true
	// epoch-a1 BuildSucceeded -> Ready    CacheReady=True  CacheBuilt     stored epoch=epoch-a1 build=false
	// false OwnerRestarted
	// epoch-b2 Observed       -> NotBuilt CacheReady=False OwnerRestarted stored epoch=epoch-b2 build=true
	// epoch-b2 BuildSucceeded -> Ready    CacheReady=True  CacheBuilt     stored epoch=epoch-b2 build=false
	// true CacheBuilt
}

// A Driver carries out the machine's decisions; its fields are the
// adapter's side effects. A restarted process distrusts the True its
// predecessor wrote, builds its own cache, then writes True with the
// cache's counts and makes it live.
func ExampleDriver() {
	stored := conditions.Condition{Type: cacheready.Type, Status: conditions.ConditionTrue, ObservedGeneration: 7, Reason: cacheready.ReasonCacheBuilt}
	var live []string
	d := cacheready.Driver[[]string]{
		Publish: func(c conditions.Condition, epoch string, built []string, fresh bool) error {
			fmt.Printf("write %s/%s epoch %s", c.Status, c.Reason, epoch)
			if fresh {
				fmt.Printf(", %d addresses", len(built))
			}
			fmt.Println()
			return nil
		},
		Build: func(gen int64) ([]string, error) {
			fmt.Println("build for generation", gen)
			return []string{"10.0.0.5", "10.0.0.6"}, nil
		},
		Adopt: func(built []string) { live = built },
	}
	m, err := d.Run(cacheready.New("b2"), cacheready.Observed{Generation: 7, Stored: &stored, StoredEpoch: "a1"})
	fmt.Println(m.State(), live, err)
	// Output:
	// write False/OwnerRestarted epoch b2
	// build for generation 7
	// write True/CacheBuilt epoch b2, 2 addresses
	// Ready [10.0.0.5 10.0.0.6] <nil>
}
