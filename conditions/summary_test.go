package conditions

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSummary(t *testing.T) {
	conds := []Condition{
		cond("CacheReady", ConditionTrue, 4, t0, "CacheBuilt", "built"),
		cond("Synced", ConditionFalse, 4, t0, "SyncFailed", "agent unreachable"),
		cond("Stalled", ConditionFalse, 4, t0, "AsExpected", ""),
		cond("Degraded", ConditionTrue, 4, t0, "OneAgentDown", "1 of 3 agents down"),
		cond("Probing", ConditionUnknown, 4, t0, "", ""),
		cond("Old", ConditionTrue, 2, t0, "Fine", ""),
		cond("Unset", ConditionTrue, 0, t0, "Fine", ""),
		cond("Weird", "maybe", 4, t0, "bad reason", "?"),
	}
	ready := func(st Status, reason, msg string) Condition {
		return Condition{Type: "Ready", Status: st, ObservedGeneration: 4, Reason: reason, Message: msg}
	}
	tests := []struct {
		name  string
		terms []Term
		want  Condition
	}{
		{"no terms is True", nil, ready(ConditionTrue, ReasonAsExpected, "")},
		{"all good, with a negative term", []Term{{Type: "CacheReady"}, {Type: "Stalled", Negative: true}},
			ready(ConditionTrue, ReasonAsExpected, "")},
		{"one bad positive term", []Term{{Type: "CacheReady"}, {Type: "Synced"}},
			ready(ConditionFalse, "SyncFailed", "Synced is False (SyncFailed): agent unreachable")},
		{"a True negative term is bad", []Term{{Type: "CacheReady"}, {Type: "Degraded", Negative: true}},
			ready(ConditionFalse, "OneAgentDown", "Degraded is True (OneAgentDown): 1 of 3 agents down")},
		{"bad wins over unknown; reason of the first bad; every problem named in order",
			[]Term{{Type: "Probing"}, {Type: "Degraded", Negative: true}, {Type: "Synced"}, {Type: "CacheReady"}},
			ready(ConditionFalse, "OneAgentDown",
				"Probing is Unknown; Degraded is True (OneAgentDown): 1 of 3 agents down; Synced is False (SyncFailed): agent unreachable")},
		{"absent required term is Unknown/NotReported", []Term{{Type: "CacheReady"}, {Type: "Missing"}},
			ready(ConditionUnknown, ReasonNotReported, "Missing not reported")},
		{"absent negative term is Unknown unless optional", []Term{{Type: "Stuck", Negative: true}},
			ready(ConditionUnknown, ReasonNotReported, "Stuck not reported")},
		{"absent optional term is good", []Term{{Type: "CacheReady"}, {Type: "Stuck", Negative: true, Optional: true}},
			ready(ConditionTrue, ReasonAsExpected, "")},
		{"present optional term still counts", []Term{{Type: "Synced", Optional: true}},
			ready(ConditionFalse, "SyncFailed", "Synced is False (SyncFailed): agent unreachable")},
		{"Unknown without a reason reads NotReady", []Term{{Type: "Probing"}},
			ready(ConditionUnknown, ReasonNotReady, "Probing is Unknown")},
		{"good but for an older generation is Unknown/StaleGeneration", []Term{{Type: "Old"}},
			ready(ConditionUnknown, ReasonStaleGeneration, "Old is True for generation 2, not 4")},
		{"unset observedGeneration is not stale", []Term{{Type: "Unset"}}, ready(ConditionTrue, ReasonAsExpected, "")},
		{"invalid status and reason", []Term{{Type: "Weird"}},
			ready(ConditionUnknown, ReasonNotReady, "Weird is maybe (bad reason): ?")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summary("Ready", 4, conds, tt.terms...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Summary (-want +got):\n%s", diff)
			}
			got.LastTransitionTime = t0
			if err := Validate(got); err != nil {
				t.Errorf("Summary is not a valid condition: %v", err)
			}
		})
	}
}

func TestSummaryGenerationZeroSkipsStaleness(t *testing.T) {
	got := Summary("Ready", 0, []Condition{cond("A", ConditionTrue, 2, t0, "Up", "")}, Term{Type: "A"})
	if got.Status != ConditionTrue {
		t.Errorf("Summary with generation 0 = %+v, want True", got)
	}
}

func TestSummaryMessageTruncated(t *testing.T) {
	var conds []Condition
	var terms []Term
	for _, typ := range []string{"A", "B", "C"} {
		conds = append(conds, cond(typ, ConditionFalse, 1, t0, "Down", strings.Repeat("x", 20000)))
		terms = append(terms, Term{Type: typ})
	}
	got := Summary("Ready", 1, conds, terms...)
	if len(got.Message) != MaxMessageLength {
		t.Errorf("message length %d, want %d", len(got.Message), MaxMessageLength)
	}
}
