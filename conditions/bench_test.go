package conditions

import (
	"fmt"
	"testing"
	"time"
)

// setInPlace is the baseline: the semantics of k8s.io/apimachinery's
// meta.SetStatusCondition (it writes into the caller's slice and, there,
// reads the wall clock; here now is passed in for a fair comparison).
func setInPlace(conds *[]Condition, c Condition, now time.Time) bool {
	for i := range *conds {
		old := &(*conds)[i]
		if old.Type != c.Type {
			continue
		}
		changed := false
		if old.Status != c.Status {
			old.Status = c.Status
			old.LastTransitionTime = now
			changed = true
		}
		if old.Reason != c.Reason {
			old.Reason, changed = c.Reason, true
		}
		if old.Message != c.Message {
			old.Message, changed = c.Message, true
		}
		if old.ObservedGeneration != c.ObservedGeneration {
			old.ObservedGeneration, changed = c.ObservedGeneration, true
		}
		return changed
	}
	c.LastTransitionTime = now
	*conds = append(*conds, c)
	return true
}

func benchConds() []Condition {
	var conds []Condition
	for i := range 8 {
		conds = append(conds, cond(fmt.Sprintf("Type%d", i), ConditionTrue, 1, t0, "Fine", "all good"))
	}
	return conds
}

// BenchmarkSet compares Set with the in-place baseline on a status of eight
// conditions: "same" writes what is there (the common reconcile), "flip"
// alternates the status of the last one.
func BenchmarkSet(b *testing.B) {
	same := cond("Type7", ConditionTrue, 1, time.Time{}, "Fine", "all good")
	flips := [2]Condition{cond("Type7", ConditionFalse, 1, time.Time{}, "Down", "x"), same}
	for _, impl := range []string{"vmnetkit", "inplace"} {
		b.Run("impl="+impl+"/case=same", func(b *testing.B) {
			conds := benchConds()
			b.ResetTimer()
			for range b.N {
				if impl == "vmnetkit" {
					conds, _ = Set(conds, same, t1)
				} else {
					setInPlace(&conds, same, t1)
				}
			}
		})
		b.Run("impl="+impl+"/case=flip", func(b *testing.B) {
			conds := benchConds()
			i := 0
			b.ResetTimer()
			for range b.N {
				if impl == "vmnetkit" {
					conds, _ = Set(conds, flips[i&1], t1)
				} else {
					setInPlace(&conds, flips[i&1], t1)
				}
				i++
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	valid := cond("vmnetkit.example.com/CacheReady", ConditionTrue, 3, t0, "CacheBuilt", "the cache was built")
	b.ResetTimer()
	for range b.N {
		if Validate(valid) != nil {
			b.Fatal("rejected")
		}
	}
}
