package cacheready

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/conditions"
)

func TestMachineRules(t *testing.T) {
	longErr := errors.New(strings.Repeat("é", conditions.MaxMessageLength)) // 2 bytes each
	tests := []struct {
		name  string
		steps []cacheStep
	}{
		// A fresh process never trusts a persisted True.
		{"fresh: stored True from another epoch publishes OwnerRestarted and builds", []cacheStep{
			{Observed{Generation: 3, Stored: stored(conditions.ConditionTrue, 3, ReasonCacheBuilt, "x"), StoredEpoch: epochA},
				StateNotBuilt, publish(conditions.ConditionFalse, 3, ReasonOwnerRestarted, msgRestartedAB).withBuild()},
		}},
		{"fresh: stored False from another epoch is OwnerRestarted too", []cacheStep{
			{Observed{Generation: 3, Stored: stored(conditions.ConditionFalse, 2, ReasonBuildFailed, "x"), StoredEpoch: epochA},
				StateNotBuilt, publish(conditions.ConditionFalse, 3, ReasonOwnerRestarted, msgRestartedAB).withBuild()},
		}},
		{"fresh: no stored condition is NotInitialized", toReady[:1]},
		{"fresh: stored True with the live epoch is not trusted either", []cacheStep{
			{Observed{Generation: 3, Stored: stored(conditions.ConditionTrue, 3, ReasonCacheBuilt, msgBuiltB), StoredEpoch: epochB},
				StateNotBuilt, publish(conditions.ConditionFalse, 3, ReasonNotInitialized, msgNotInitialized).withBuild()},
		}},
		{"fresh: stored condition already right publishes nothing, still builds", []cacheStep{
			{Observed{Generation: 3, Stored: stored(conditions.ConditionFalse, 3, ReasonNotInitialized, msgNotInitialized), StoredEpoch: epochB},
				StateNotBuilt, build},
		}},
		{"fresh: paused pool publishes Paused, builds nothing", []cacheStep{
			{Observed{Generation: 3, Paused: true, Stored: stored(conditions.ConditionTrue, 3, ReasonCacheBuilt, ""), StoredEpoch: epochA},
				StatePaused, publish(conditions.ConditionFalse, 3, ReasonPaused, msgPaused)},
		}},
		{"fresh: pool being deleted is Gone, nothing to drop", []cacheStep{
			{Observed{Generation: 3, Deleting: true, Paused: true}, StateGone, none},
		}},
		{"fresh: events before the first observation are ignored", []cacheStep{
			{BuildSucceeded{Generation: 0}, StateUnobserved, none},
			{BuildFailed{Generation: 0}, StateUnobserved, none},
			{GenerationChanged{Generation: 4, SpecChanged: true}, StateUnobserved, none},
			{Dropped{}, StateUnobserved, none},
			{Paused{}, StateUnobserved, none},
			{Resumed{}, StateUnobserved, none},
			{nil, StateUnobserved, none},
			{Deleted{}, StateGone, none},
		}},
		{"fresh: negative generation is ignored", []cacheStep{
			{observed(-1), StateUnobserved, none},
		}},

		// Ready only after a build for the current generation in this epoch.
		{"build success for the current generation is Ready", toReady},
		{"build success for an older generation is discarded and rebuilt", []cacheStep{
			toReady[0],
			{GenerationChanged{Generation: 4, SpecChanged: true}, StateNotBuilt, publish(conditions.ConditionFalse, 4, ReasonSpecChanged, msgSpecChanged(4)).withBuild()},
			{BuildSucceeded{Generation: 3}, StateNotBuilt, build},
			{BuildSucceeded{Generation: 4}, StateReady, publish(conditions.ConditionTrue, 4, ReasonCacheBuilt, msgBuiltB)},
		}},
		{"build success for a generation not yet seen is discarded", []cacheStep{
			toReady[0],
			{BuildSucceeded{Generation: 9}, StateNotBuilt, build},
		}},
		{"a stale success in Ready replaced the cache: False/Building and rebuild", then(toReady,
			cacheStep{BuildSucceeded{Generation: 2}, StateNotBuilt,
				publish(conditions.ConditionFalse, 3, ReasonBuilding, "a build for generation 2 replaced the cache; rebuilding for generation 3").withBuild()},
		)},
		{"a negative-generation success in Ready is stale like an old one", then(toReady,
			cacheStep{BuildSucceeded{Generation: -1}, StateNotBuilt,
				publish(conditions.ConditionFalse, 3, ReasonBuilding, "a build for generation -1 replaced the cache; rebuilding for generation 3").withBuild()},
		)},
		{"a stale failure in Ready is ignored: the cache is the current generation's", then(toReady,
			cacheStep{BuildFailed{Generation: 2, Err: errors.New("old")}, StateReady, none},
		)},
		{"a stale failure in Failed is ignored: the reported failure is the current generation's", then(toFailed,
			cacheStep{BuildFailed{Generation: 2, Err: errors.New("old")}, StateFailed, none},
		)},
		{"a duplicate success in Ready changes nothing", then(toReady,
			cacheStep{BuildSucceeded{Generation: 3}, StateReady, none},
		)},
		{"a repeated observation while not built asks to build again", []cacheStep{
			toReady[0],
			{Observed{Generation: 3, Stored: stored(conditions.ConditionFalse, 3, ReasonNotInitialized, msgNotInitialized), StoredEpoch: epochB}, StateNotBuilt, build},
		}},

		// Generation changes.
		{"generation change without spec change keeps Ready, moves ObservedGeneration", then(toReady,
			cacheStep{GenerationChanged{Generation: 4}, StateReady, publish(conditions.ConditionTrue, 4, ReasonCacheBuilt, msgBuiltB)},
		)},
		{"generation change with spec change publishes SpecChanged and rebuilds", then(toReady,
			cacheStep{GenerationChanged{Generation: 4, SpecChanged: true}, StateNotBuilt, publish(conditions.ConditionFalse, 4, ReasonSpecChanged, msgSpecChanged(4)).withBuild()},
		)},
		{"observation of a higher generation in Ready counts as a spec change", then(toReady,
			cacheStep{observed(5), StateNotBuilt, publish(conditions.ConditionFalse, 5, ReasonSpecChanged, msgSpecChanged(5)).withBuild()},
		)},
		{"GenerationChanged first, then the observation, keeps Ready", then(toReady,
			cacheStep{GenerationChanged{Generation: 5}, StateReady, publish(conditions.ConditionTrue, 5, ReasonCacheBuilt, msgBuiltB)},
			cacheStep{Observed{Generation: 5, Stored: stored(conditions.ConditionTrue, 5, ReasonCacheBuilt, msgBuiltB), StoredEpoch: epochB}, StateReady, none},
		)},
		{"stale or repeated generations are ignored", then(toReady,
			cacheStep{GenerationChanged{Generation: 3, SpecChanged: true}, StateReady, none},
			cacheStep{GenerationChanged{Generation: 2, SpecChanged: true}, StateReady, none},
			cacheStep{Observed{Generation: 2, Deleting: true}, StateReady, none},
		)},
		{"generation change while not built rebuilds for the new generation", []cacheStep{
			toReady[0],
			{GenerationChanged{Generation: 4}, StateNotBuilt, publish(conditions.ConditionFalse, 4, ReasonNotInitialized, msgNotInitialized).withBuild()},
		}},
		{"generation change in Failed without spec change only moves the generation", then(toFailed,
			cacheStep{GenerationChanged{Generation: 4}, StateFailed, publish(conditions.ConditionFalse, 4, ReasonBuildFailed, "snapshot: 2 problems")},
		)},
		{"generation change in Failed with spec change rebuilds", then(toFailed,
			cacheStep{GenerationChanged{Generation: 4, SpecChanged: true}, StateNotBuilt, publish(conditions.ConditionFalse, 4, ReasonSpecChanged, msgSpecChanged(4)).withBuild()},
		)},
		{"generation change while paused only moves the generation", then(toPaused,
			cacheStep{GenerationChanged{Generation: 4, SpecChanged: true}, StatePaused, publish(conditions.ConditionFalse, 4, ReasonPaused, msgPaused)},
		)},

		// Build failure and retry.
		{"build failure publishes BuildFailed with the error", toFailed},
		{"retry (the next observation) returns to NotBuilt, keeps the condition", then(toFailed,
			cacheStep{Observed{Generation: 3, Stored: stored(conditions.ConditionFalse, 3, ReasonBuildFailed, "snapshot: 2 problems"), StoredEpoch: epochB}, StateNotBuilt, build},
			cacheStep{BuildSucceeded{Generation: 3}, StateReady, publish(conditions.ConditionTrue, 3, ReasonCacheBuilt, msgBuiltB)},
		)},
		{"retry failing again with the same error publishes nothing", then(toFailed,
			cacheStep{observed(3), StateNotBuilt, publish(conditions.ConditionFalse, 3, ReasonBuildFailed, "snapshot: 2 problems").withBuild()},
			cacheStep{BuildFailed{Generation: 3, Err: errors.New("snapshot: 2 problems")}, StateFailed, none},
			cacheStep{BuildFailed{Generation: 3, Err: errors.New("snapshot: 3 problems")}, StateFailed, publish(conditions.ConditionFalse, 3, ReasonBuildFailed, "snapshot: 3 problems")},
		)},
		{"a failure for an older generation is discarded and rebuilt", []cacheStep{
			toReady[0],
			{GenerationChanged{Generation: 4, SpecChanged: true}, StateNotBuilt, publish(conditions.ConditionFalse, 4, ReasonSpecChanged, msgSpecChanged(4)).withBuild()},
			{BuildFailed{Generation: 3, Err: errors.New("old")}, StateNotBuilt, build},
		}},
		{"a failure in Ready leaves the intact cache Ready", then(toReady,
			cacheStep{BuildFailed{Generation: 3, Err: errors.New("x")}, StateReady, none},
		)},
		{"a nil error still explains itself", []cacheStep{
			toReady[0],
			{BuildFailed{Generation: 3}, StateFailed, publish(conditions.ConditionFalse, 3, ReasonBuildFailed, "the cache build failed")},
		}},
		{"an error that panics when printed does not panic Step", []cacheStep{
			toReady[0],
			{BuildFailed{Generation: 3, Err: (*panickyError)(nil)}, StateFailed,
				publish(conditions.ConditionFalse, 3, ReasonBuildFailed, "the cache build failed (its error could not be printed)")},
		}},
		{"a huge error is truncated to a valid message", []cacheStep{
			toReady[0],
			{BuildFailed{Generation: 3, Err: longErr}, StateFailed, publish(conditions.ConditionFalse, 3, ReasonBuildFailed, strings.Repeat("é", conditions.MaxMessageLength/2))},
		}},
		{"a success in Failed is Ready", then(toFailed,
			cacheStep{BuildSucceeded{Generation: 3}, StateReady, publish(conditions.ConditionTrue, 3, ReasonCacheBuilt, msgBuiltB)},
		)},
		{"a stale success in Failed asks for a build, keeps the condition", then(toFailed,
			cacheStep{BuildSucceeded{Generation: 2}, StateNotBuilt, build},
		)},

		// Pause, resume, drop, delete.
		{"pause publishes Paused and drops the cache", toPaused},
		{"resume publishes Building and rebuilds", then(toPaused,
			cacheStep{Resumed{}, StateNotBuilt, publish(conditions.ConditionFalse, 3, ReasonBuilding, msgResumed).withBuild()},
			cacheStep{BuildSucceeded{Generation: 3}, StateReady, publish(conditions.ConditionTrue, 3, ReasonCacheBuilt, msgBuiltB)},
		)},
		{"an observation that is no longer paused resumes", then(toPaused,
			cacheStep{observed(4), StateNotBuilt, publish(conditions.ConditionFalse, 4, ReasonBuilding, msgResumed).withBuild()},
		)},
		{"an observation that is still paused changes nothing", then(toPaused,
			cacheStep{Observed{Generation: 3, Paused: true, Stored: stored(conditions.ConditionFalse, 3, ReasonPaused, msgPaused), StoredEpoch: epochB}, StatePaused, none},
		)},
		{"an observation that is paused pauses", then(toReady,
			cacheStep{Observed{Generation: 3, Paused: true}, StatePaused, publish(conditions.ConditionFalse, 3, ReasonPaused, msgPaused).withDrop()},
		)},
		{"a build finishing while paused is dropped", then(toPaused,
			cacheStep{BuildSucceeded{Generation: 3}, StatePaused, drop},
			cacheStep{BuildFailed{Generation: 3}, StatePaused, none},
			cacheStep{Dropped{}, StatePaused, none},
			cacheStep{Paused{}, StatePaused, none},
		)},
		{"pause while building drops", []cacheStep{
			toReady[0],
			{Paused{}, StatePaused, publish(conditions.ConditionFalse, 3, ReasonPaused, msgPaused).withDrop()},
		}},
		{"resume when not paused is ignored", then(toReady,
			cacheStep{Resumed{}, StateReady, none},
		)},
		{"a dropped cache in Ready publishes CacheDropped and rebuilds", then(toReady,
			cacheStep{Dropped{}, StateNotBuilt, publish(conditions.ConditionFalse, 3, ReasonCacheDropped, msgDropped).withBuild()},
		)},
		{"a dropped cache while building asks again", []cacheStep{
			toReady[0],
			{Dropped{}, StateNotBuilt, build},
		}},
		{"deletion drops the cache and publishes nothing", then(toReady,
			cacheStep{Deleted{}, StateGone, drop},
		)},
		{"an observation of a pool being deleted is deletion", then(toReady,
			cacheStep{Observed{Generation: 4, Deleting: true}, StateGone, drop},
		)},
		{"every event after Gone is ignored", then(toReady,
			cacheStep{Deleted{}, StateGone, drop},
			cacheStep{observed(9), StateGone, none},
			cacheStep{BuildSucceeded{Generation: 3}, StateGone, none},
			cacheStep{BuildFailed{Generation: 3}, StateGone, none},
			cacheStep{GenerationChanged{Generation: 9, SpecChanged: true}, StateGone, none},
			cacheStep{Dropped{}, StateGone, none},
			cacheStep{Paused{}, StateGone, none},
			cacheStep{Resumed{}, StateGone, none},
			cacheStep{Deleted{}, StateGone, none},
		)},

		// Publishing only what changed, and repairing what is stored.
		{"a lost status write is republished at the next observation", then(toReady,
			cacheStep{Observed{Generation: 3, Stored: stored(conditions.ConditionFalse, 3, ReasonNotInitialized, msgNotInitialized), StoredEpoch: epochB},
				StateReady, publish(conditions.ConditionTrue, 3, ReasonCacheBuilt, msgBuiltB)},
		)},
		{"a stored condition overwritten by another epoch is republished", then(toReady,
			cacheStep{Observed{Generation: 3, Stored: stored(conditions.ConditionTrue, 3, ReasonCacheBuilt, msgBuiltB), StoredEpoch: epochA},
				StateReady, publish(conditions.ConditionTrue, 3, ReasonCacheBuilt, msgBuiltB)},
		)},
		{"a removed condition is republished", then(toReady,
			cacheStep{observed(3), StateReady, publish(conditions.ConditionTrue, 3, ReasonCacheBuilt, msgBuiltB)},
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(epochB)
			for i, s := range tt.steps {
				before := m
				next, got := m.Step(s.event)
				if m != before {
					t.Fatalf("step %d: Step modified its receiver", i)
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Errorf("step %d %T%+v: decision (-want +got):\n%s", i, s.event, s.event, diff)
				}
				if next.State() != s.state {
					t.Errorf("step %d %T%+v: state = %v, want %v", i, s.event, s.event, next.State(), s.state)
				}
				checkDecision(t, next, got)
				m = next
			}
		})
	}
}

func TestCacheStateString(t *testing.T) {
	tests := []struct {
		s    State
		want string
	}{
		{StateUnobserved, "Unobserved"}, {StateNotBuilt, "NotBuilt"}, {StateReady, "Ready"},
		{StateFailed, "Failed"}, {StatePaused, "Paused"}, {StateGone, "Gone"},
		{State(6), "State(6)"}, {State(-1), "State(-1)"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("State(%d).String() = %q, want %q", int(tt.s), got, tt.want)
		}
	}
}

func TestMachineAccessors(t *testing.T) {
	m := New(epochB)
	if m.Epoch() != epochB || m.State() != StateUnobserved || m.Generation() != 0 {
		t.Fatalf("fresh machine: epoch %q state %v generation %d", m.Epoch(), m.State(), m.Generation())
	}
	if _, ok := m.Condition(); ok {
		t.Error("fresh machine has a condition to publish")
	}
	m, _ = m.Step(observed(7))
	if m.Generation() != 7 {
		t.Errorf("Generation() = %d after observing 7", m.Generation())
	}
}

func TestIsReady(t *testing.T) {
	trueAt := func(gen int64) []conditions.Condition {
		return []conditions.Condition{cond("Other", conditions.ConditionTrue, 1, t0, "X", ""), *stored(conditions.ConditionTrue, gen, ReasonCacheBuilt, "")}
	}
	tests := []struct {
		name              string
		conds             []conditions.Condition
		gen               int64
		storedEpoch, live string
		wantReady         bool
		wantReason        string
	}{
		{"True, this generation, live epoch", trueAt(3), 3, epochB, epochB, true, ReasonCacheBuilt},
		{"absent", []conditions.Condition{cond("Other", conditions.ConditionTrue, 1, t0, "X", "")}, 3, epochB, epochB, false, ReasonNotInitialized},
		{"nil", nil, 3, epochB, epochB, false, ReasonNotInitialized},
		{"True from a previous process", trueAt(3), 3, epochA, epochB, false, ReasonOwnerRestarted},
		{"True without a stored epoch", trueAt(3), 3, "", epochB, false, ReasonOwnerRestarted},
		{"empty live epoch never reads ready", trueAt(3), 3, "", "", false, ReasonOwnerRestarted},
		{"True for an older generation", trueAt(2), 3, epochB, epochB, false, ReasonStaleGeneration},
		{"True for a newer generation", trueAt(4), 3, epochB, epochB, false, ReasonStaleGeneration},
		{"False carries its own reason", []conditions.Condition{*stored(conditions.ConditionFalse, 3, ReasonBuildFailed, "boom")}, 3, epochB, epochB, false, ReasonBuildFailed},
		{"Unknown without a reason", []conditions.Condition{*stored(conditions.ConditionUnknown, 3, "", "")}, 3, epochB, epochB, false, ReasonNotReady},
		{"False with an invalid reason", []conditions.Condition{*stored(conditions.ConditionFalse, 3, "not valid", "")}, 3, epochB, epochB, false, ReasonNotReady},
		{"invalid status", []conditions.Condition{*stored("true", 3, ReasonCacheBuilt, "")}, 3, epochB, epochB, false, ReasonNotReady},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ready, reason := IsReady(tt.conds, tt.gen, tt.storedEpoch, tt.live)
			if ready != tt.wantReady || reason != tt.wantReason {
				t.Errorf("IsReady = %v, %q; want %v, %q", ready, reason, tt.wantReady, tt.wantReason)
			}
		})
	}
}

// panickyError's Error dereferences its receiver, as many do.
type panickyError struct{ msg string }

func (e *panickyError) Error() string { return e.msg }
