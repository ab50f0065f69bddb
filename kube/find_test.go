package kube_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/kube"
)

func TestFindMeta(t *testing.T) {
	readyAgain := metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Second"}
	tests := []struct {
		name   string
		conds  []metav1.Condition
		typ    string
		want   conditions.Condition
		wantOK bool
	}{
		{name: "nil", conds: nil, typ: "Ready", want: conditions.Condition{}, wantOK: false},
		{name: "absent", conds: []metav1.Condition{cacheMeta}, typ: "Ready", want: conditions.Condition{}, wantOK: false},
		{name: "every field", conds: []metav1.Condition{cacheMeta, readyMeta}, typ: "Ready", want: readyCore, wantOK: true},
		{name: "type with a domain", conds: []metav1.Condition{readyMeta, cacheMeta}, typ: "example.com/CacheReady", want: cacheCore, wantOK: true},
		{name: "the type is matched exactly", conds: []metav1.Condition{readyMeta}, typ: "ready", want: conditions.Condition{}, wantOK: false},
		{name: "empty type finds a condition without one", conds: []metav1.Condition{readyMeta, {Reason: "NoType"}}, typ: "", want: conditions.Condition{Reason: "NoType"}, wantOK: true},
		{name: "the first of two of one type", conds: []metav1.Condition{readyMeta, readyAgain}, typ: "Ready", want: readyCore, wantOK: true},
		{
			name:   "time in another location comes back in UTC",
			conds:  []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.In(cet)), Reason: "Up"}},
			typ:    "Ready",
			want:   conditions.Condition{Type: "Ready", Status: conditions.ConditionTrue, LastTransitionTime: t0, Reason: "Up"},
			wantOK: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := kube.FindMeta(tt.conds, tt.typ)
			if ok != tt.wantOK {
				t.Errorf("FindMeta ok = %v, want %v", ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FindMeta (-want +got):\n%s", diff)
			}
			checkUTC(t, []conditions.Condition{got})
			// The same as the core's Find on the whole list converted, with ==.
			core, coreOK := conditions.Find(kube.FromMeta(tt.conds), tt.typ)
			if got != core || ok != coreOK {
				t.Errorf("FindMeta = %+v, %v; conditions.Find(FromMeta) = %+v, %v", got, ok, core, coreOK)
			}
		})
	}
}

func TestFindMetaDoesNotAllocate(t *testing.T) {
	conds := []metav1.Condition{readyMeta, cacheMeta}
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := kube.FindMeta(conds, cacheMeta.Type); !ok {
			t.Fatal("not found")
		}
	})
	if allocs != 0 {
		t.Errorf("FindMeta allocates %v times per call, want 0", allocs)
	}
}
