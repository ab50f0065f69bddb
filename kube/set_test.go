package kube_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/kube"
)

func TestSetMeta(t *testing.T) {
	now := t0.Add(90*time.Second + 400*time.Millisecond)
	nowSec := metav1.NewTime(t0.Add(90 * time.Second))
	down := conditions.Condition{Type: "Ready", Status: conditions.ConditionFalse, ObservedGeneration: 3, Reason: "Down"}
	tests := []struct {
		name        string
		conds       []metav1.Condition
		c           conditions.Condition
		want        []metav1.Condition
		wantChanged bool
	}{
		{
			name:        "added to nil, at now in whole seconds",
			conds:       nil,
			c:           down,
			want:        []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, ObservedGeneration: 3, LastTransitionTime: nowSec, Reason: "Down"}},
			wantChanged: true,
		},
		{
			name:        "added after the others",
			conds:       []metav1.Condition{cacheMeta},
			c:           down,
			want:        []metav1.Condition{cacheMeta, {Type: "Ready", Status: metav1.ConditionFalse, ObservedGeneration: 3, LastTransitionTime: nowSec, Reason: "Down"}},
			wantChanged: true,
		},
		{
			name:        "status changes: the time moves",
			conds:       []metav1.Condition{readyMeta, cacheMeta},
			c:           down,
			want:        []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, ObservedGeneration: 3, LastTransitionTime: nowSec, Reason: "Down"}, cacheMeta},
			wantChanged: true,
		},
		{
			name:        "same status, new generation: the time stays",
			conds:       []metav1.Condition{cacheMeta, readyMeta},
			c:           conditions.Condition{Type: "Ready", Status: conditions.ConditionTrue, ObservedGeneration: 4, Reason: "Allocated", Message: "3 NICs have their address"},
			want:        []metav1.Condition{cacheMeta, {Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: 4, LastTransitionTime: readyMeta.LastTransitionTime, Reason: "Allocated", Message: "3 NICs have their address"}},
			wantChanged: true,
		},
		{
			name:        "nothing changes",
			conds:       []metav1.Condition{readyMeta, cacheMeta},
			c:           conditions.Condition{Type: "Ready", Status: conditions.ConditionTrue, ObservedGeneration: 3, LastTransitionTime: now, Reason: "Allocated", Message: "2 NICs have their address"},
			want:        []metav1.Condition{readyMeta, cacheMeta},
			wantChanged: false,
		},
		{
			name:        "a time read back in another location changes nothing",
			conds:       []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.In(cet)), Reason: "Up"}},
			c:           conditions.Condition{Type: "Ready", Status: conditions.ConditionTrue, Reason: "Up"},
			want:        []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.In(cet)), Reason: "Up"}},
			wantChanged: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := append([]metav1.Condition(nil), tt.conds...)
			got, changed := kube.SetMeta(tt.conds, tt.c, now)
			if changed != tt.wantChanged {
				t.Errorf("SetMeta changed = %v, want %v", changed, tt.wantChanged)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SetMeta (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.conds); diff != "" {
				t.Errorf("SetMeta wrote to its input (-before +after):\n%s", diff)
			}
			switch {
			case !changed && len(got) > 0 && &got[0] != &tt.conds[0]:
				t.Errorf("SetMeta without a change returned a copy, want conds itself")
			case changed && len(tt.conds) > 0 && &got[0] == &tt.conds[0]:
				t.Errorf("SetMeta with a change returned conds' backing array")
			}
		})
	}
}
