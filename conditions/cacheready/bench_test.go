package cacheready

import (
	"testing"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// TestReadersDoNotAllocate: IsReady and New do not allocate.
func TestReadersDoNotAllocate(t *testing.T) {
	conds := []conditions.Condition{cond("A", conditions.ConditionTrue, 1, t0, "Up", ""), cond(Type, conditions.ConditionTrue, 3, t0, ReasonCacheBuilt, "")}
	n := testing.AllocsPerRun(100, func() {
		IsReady(conds, 3, "e", "e")
		IsReady(conds, 3, "e", "f")
		New("e")
	})
	if n != 0 {
		t.Errorf("readers allocate %v times per run, want 0", n)
	}
}

// BenchmarkMachine runs one reconcile-like cycle per iteration:
// observe, build, a generation change, observe again.
func BenchmarkMachine(b *testing.B) {
	stored := cond(Type, conditions.ConditionTrue, 1, t0, ReasonCacheBuilt, "x")
	b.ResetTimer()
	for range b.N {
		m := New("epoch-b2")
		m, _ = m.Step(Observed{Generation: 1, Stored: &stored, StoredEpoch: "epoch-a1"})
		m, _ = m.Step(BuildSucceeded{Generation: 1})
		m, _ = m.Step(GenerationChanged{Generation: 2})
		m, _ = m.Step(Observed{Generation: 2})
		if m.State() != StateReady {
			b.Fatal(m.State())
		}
	}
}
