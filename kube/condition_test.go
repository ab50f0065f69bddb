package kube_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/kube"
)

var (
	t0  = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	cet = time.FixedZone("CET", 3600)
)

// A condition with every field set, in both forms.
var (
	readyCore = conditions.Condition{Type: "Ready", Status: conditions.ConditionTrue, ObservedGeneration: 3, LastTransitionTime: t0, Reason: "Allocated", Message: "2 NICs have their address"}
	readyMeta = metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: 3, LastTransitionTime: metav1.NewTime(t0), Reason: "Allocated", Message: "2 NICs have their address"}
	cacheCore = conditions.Condition{Type: "example.com/CacheReady", Status: conditions.ConditionFalse, LastTransitionTime: t0.Add(-time.Hour), Reason: "OwnerRestarted"}
	cacheMeta = metav1.Condition{Type: "example.com/CacheReady", Status: metav1.ConditionFalse, LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour)), Reason: "OwnerRestarted"}
)

// checkUTC fails if a time in conds is not in UTC: cmp compares times with
// their Equal method, which ignores the location.
func checkUTC(t *testing.T, conds []conditions.Condition) {
	t.Helper()
	for _, c := range conds {
		if loc := c.LastTransitionTime.Location(); loc != time.UTC {
			t.Errorf("%s: LastTransitionTime %v in %v, want UTC", c.Type, c.LastTransitionTime, loc)
		}
	}
}

func TestFromMeta(t *testing.T) {
	tests := []struct {
		name string
		in   []metav1.Condition
		want []conditions.Condition
	}{
		{name: "nil stays nil", in: nil, want: nil},
		{name: "empty stays empty", in: []metav1.Condition{}, want: []conditions.Condition{}},
		{name: "every field, in order", in: []metav1.Condition{readyMeta, cacheMeta}, want: []conditions.Condition{readyCore, cacheCore}},
		{name: "zero condition", in: []metav1.Condition{{}}, want: []conditions.Condition{{}}},
		{
			name: "invalid values are copied, not checked",
			in:   []metav1.Condition{{Type: "not a type", Status: "true", ObservedGeneration: -1, Reason: "no spaces allowed"}},
			want: []conditions.Condition{{Type: "not a type", Status: "true", ObservedGeneration: -1, Reason: "no spaces allowed"}},
		},
		{
			name: "time in another location comes back in UTC",
			in:   []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.In(cet)), Reason: "Up"}},
			want: []conditions.Condition{{Type: "Ready", Status: conditions.ConditionTrue, LastTransitionTime: t0, Reason: "Up"}},
		},
		{
			name: "fraction of a second is kept",
			in:   []metav1.Condition{{Type: "Ready", LastTransitionTime: metav1.NewTime(t0.Add(1500 * time.Millisecond))}},
			want: []conditions.Condition{{Type: "Ready", LastTransitionTime: t0.Add(1500 * time.Millisecond)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := kube.FromMeta(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FromMeta (-want +got):\n%s", diff)
			}
			checkUTC(t, got)
		})
	}
}

func TestToMeta(t *testing.T) {
	tests := []struct {
		name string
		in   []conditions.Condition
		want []metav1.Condition
	}{
		{name: "nil stays nil", in: nil, want: nil},
		{name: "empty stays empty", in: []conditions.Condition{}, want: []metav1.Condition{}},
		{name: "every field, in order", in: []conditions.Condition{readyCore, cacheCore}, want: []metav1.Condition{readyMeta, cacheMeta}},
		{name: "zero condition", in: []conditions.Condition{{}}, want: []metav1.Condition{{}}},
		{
			name: "invalid values are copied, not checked",
			in:   []conditions.Condition{{Type: "not a type", Status: "true", ObservedGeneration: -1, Reason: "no spaces allowed"}},
			want: []metav1.Condition{{Type: "not a type", Status: "true", ObservedGeneration: -1, Reason: "no spaces allowed"}},
		},
		{
			name: "fraction of a second is kept",
			in:   []conditions.Condition{{Type: "Ready", LastTransitionTime: t0.Add(1500 * time.Millisecond)}},
			want: []metav1.Condition{{Type: "Ready", LastTransitionTime: metav1.NewTime(t0.Add(1500 * time.Millisecond))}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := kube.ToMeta(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ToMeta (-want +got):\n%s", diff)
			}
		})
	}
}

// The conversions copy: writing to the result leaves the input alone.
func TestConversionsDoNotShare(t *testing.T) {
	meta := []metav1.Condition{readyMeta}
	kube.FromMeta(meta)[0].Reason = "Changed"
	core := []conditions.Condition{readyCore}
	kube.ToMeta(core)[0].Reason = "Changed"
	if meta[0].Reason != readyMeta.Reason || core[0].Reason != readyCore.Reason {
		t.Errorf("the input changed with the result: %q, %q", meta[0].Reason, core[0].Reason)
	}
}

// In memory, FromMeta(ToMeta(c)) is c itself (==, location included) for
// what conditions.Set returns, and the same instant in UTC otherwise.
func TestRoundTrip(t *testing.T) {
	set, _ := conditions.Set(nil, conditions.Condition{Type: "Ready", Status: conditions.ConditionTrue, Reason: "Up"}, time.Now())
	tests := []struct {
		name string
		in   []conditions.Condition
		want []conditions.Condition
	}{
		{name: "nil", in: nil, want: nil},
		{name: "every field", in: []conditions.Condition{readyCore, cacheCore}, want: []conditions.Condition{readyCore, cacheCore}},
		{name: "written by Set from the wall clock", in: set, want: set},
		{name: "zero time", in: []conditions.Condition{{Type: "Ready"}}, want: []conditions.Condition{{Type: "Ready"}}},
		{
			name: "fraction of a second is kept",
			in:   []conditions.Condition{{Type: "Ready", LastTransitionTime: t0.Add(time.Nanosecond)}},
			want: []conditions.Condition{{Type: "Ready", LastTransitionTime: t0.Add(time.Nanosecond)}},
		},
		{
			name: "another location becomes UTC",
			in:   []conditions.Condition{{Type: "Ready", LastTransitionTime: t0.In(cet)}},
			want: []conditions.Condition{{Type: "Ready", LastTransitionTime: t0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := kube.FromMeta(kube.ToMeta(tt.in))
			if len(got) != len(tt.want) || (got == nil) != (tt.want == nil) {
				t.Fatalf("FromMeta(ToMeta(%v)) = %v, want %v", tt.in, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("FromMeta(ToMeta(...))[%d] = %+v, want == %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// Storing a condition in the API server is a JSON round trip of
// metav1.Condition: the time keeps only whole seconds, a zero time stays
// zero, and every other field survives. The bytes are those of the core's
// own JSON form, and FromMeta of what metav1 decodes is (==) what the core
// decodes from them.
func TestJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   []conditions.Condition
		want []conditions.Condition
	}{
		{name: "every field", in: []conditions.Condition{readyCore, cacheCore}, want: []conditions.Condition{readyCore, cacheCore}},
		{
			name: "time truncated to seconds",
			in:   []conditions.Condition{{Type: "Ready", Status: conditions.ConditionTrue, LastTransitionTime: t0.Add(1999 * time.Millisecond), Reason: "Up"}},
			want: []conditions.Condition{{Type: "Ready", Status: conditions.ConditionTrue, LastTransitionTime: t0.Add(time.Second), Reason: "Up"}},
		},
		{
			name: "another location comes back in UTC",
			in:   []conditions.Condition{{Type: "Ready", LastTransitionTime: t0.In(cet).Add(time.Nanosecond)}},
			want: []conditions.Condition{{Type: "Ready", LastTransitionTime: t0}},
		},
		{
			name: "zero time is null and comes back zero",
			in:   []conditions.Condition{{Type: "Ready", Status: conditions.ConditionUnknown, Reason: "NotYet"}},
			want: []conditions.Condition{{Type: "Ready", Status: conditions.ConditionUnknown, Reason: "NotYet"}},
		},
		{
			name: "zero generation and empty message",
			in:   []conditions.Condition{{Type: "Ready", Status: conditions.ConditionFalse, LastTransitionTime: t0, Reason: "Down"}},
			want: []conditions.Condition{{Type: "Ready", Status: conditions.ConditionFalse, LastTransitionTime: t0, Reason: "Down"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(kube.ToMeta(tt.in))
			if err != nil {
				t.Fatalf("marshal metav1: %v", err)
			}
			coreJSON, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatalf("marshal conditions: %v", err)
			}
			if diff := cmp.Diff(string(coreJSON), string(b)); diff != "" {
				t.Errorf("JSON of ToMeta differs from the core's own (-want +got):\n%s", diff)
			}

			var stored []metav1.Condition
			if err := json.Unmarshal(b, &stored); err != nil {
				t.Fatalf("unmarshal metav1: %v", err)
			}
			got := kube.FromMeta(stored)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("after the JSON round trip (-want +got):\n%s", diff)
			}
			checkUTC(t, got)

			var direct []conditions.Condition
			if err := json.Unmarshal(b, &direct); err != nil {
				t.Fatalf("unmarshal conditions: %v", err)
			}
			for i := range direct {
				if i < len(got) && got[i] != direct[i] {
					t.Errorf("FromMeta(metav1 decoded)[%d] = %+v, want == the core's decoding %+v", i, got[i], direct[i])
				}
			}
		})
	}
}
