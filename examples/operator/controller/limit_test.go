package controller

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

func TestPoolLimit(t *testing.T) {
	tests := []struct {
		name string
		spec *int32
		dual bool // spec.ipv6 set
		flag int
		want int // per family
	}{
		{name: "no spec limit", spec: nil, flag: 20000, want: 20000},
		{name: "spec lowers it", spec: ptr.To[int32](500), flag: 20000, want: 500},
		{name: "spec cannot raise it", spec: ptr.To[int32](50000), flag: 20000, want: 20000},
		{name: "dual stack: each family half of the status budget", dual: true, flag: 20000, want: 10000},
		{name: "dual stack: spec counts per family", spec: ptr.To[int32](500), dual: true, flag: 20000, want: 500},
		{name: "dual stack: spec cannot raise the half", spec: ptr.To[int32](15000), dual: true, flag: 20000, want: 10000},
		{name: "dual stack: a limit of 1 stays 1", dual: true, flag: 1, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := v1alpha1.IPPoolSpec{MaxAllocations: tt.spec}
			if tt.dual {
				spec.IPv6 = &v1alpha1.IPPoolIPv6Spec{CIDR: "fd00::/64"}
			}
			if got := poolLimit(spec, tt.flag); got != tt.want {
				t.Errorf("poolLimit() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCapacityCondition(t *testing.T) {
	tests := []struct {
		name        string
		used, limit int
		ceiling     int
		want        conditions.Condition
	}{
		{name: "below", used: 3, limit: 5, want: conditions.Condition{Type: CapacityLimitedType, Status: conditions.ConditionFalse,
			ObservedGeneration: 2, Reason: ReasonBelowLimit, Message: "3 of at most 5 addresses handed out"}},
		{name: "at the limit", used: 5, limit: 5, want: conditions.Condition{Type: CapacityLimitedType, Status: conditions.ConditionTrue,
			ObservedGeneration: 2, Reason: ReasonLimitReached, Message: "5 of at most 5 addresses handed out: new claims wait " +
				"(one IPPool keeps every allocation in its status, which must fit in one etcd object; spread VMs over several pools to grow beyond it)"}},
		{name: "above, after the limit was lowered", used: 7, limit: 5, want: conditions.Condition{Type: CapacityLimitedType, Status: conditions.ConditionTrue,
			ObservedGeneration: 2, Reason: ReasonLimitReached, Message: "7 of at most 5 addresses handed out: new claims wait " +
				"(one IPPool keeps every allocation in its status, which must fit in one etcd object; spread VMs over several pools to grow beyond it)"}},
		{name: "the API server refused more", used: 29000, limit: 40000, ceiling: 29000, want: conditions.Condition{Type: CapacityLimitedType,
			Status: conditions.ConditionTrue, ObservedGeneration: 2, Reason: ReasonStatusTooLarge, Message: "29000 addresses handed out: " +
				"the API server refused the status with more (it must fit in one etcd object); new claims wait until the pool is rebuilt. " +
				"Set -max-allocations-per-pool or spec.maxAllocations below 29000"}},
		{name: "below the ceiling after a release", used: 28999, limit: 40000, ceiling: 29000, want: conditions.Condition{Type: CapacityLimitedType,
			Status: conditions.ConditionFalse, ObservedGeneration: 2, Reason: ReasonBelowLimit, Message: "28999 of at most 29000 addresses handed out"}},
		{name: "a ceiling above the limit changes nothing", used: 5, limit: 5, ceiling: 9, want: conditions.Condition{Type: CapacityLimitedType,
			Status: conditions.ConditionTrue, ObservedGeneration: 2, Reason: ReasonLimitReached, Message: "5 of at most 5 addresses handed out: new claims wait " +
				"(one IPPool keeps every allocation in its status, which must fit in one etcd object; spread VMs over several pools to grow beyond it)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := capacityCondition(tt.used, tt.limit, tt.ceiling, 2)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("capacityCondition(%d, %d) (-want +got):\n%s", tt.used, tt.limit, diff)
			}
			got.LastTransitionTime = time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC) // Set fills it in
			if err := conditions.Validate(got); err != nil {
				t.Errorf("the API server would refuse it: %v", err)
			}
		})
	}
}

func TestIsTooLarge(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "etcd's refusal, as kube-apiserver 1.34 returns it", err: apierrors.NewInternalError(errors.New("etcdserver: request is too large")), want: true},
		{name: "the request body limit", err: apierrors.NewRequestEntityTooLargeError("limit is 3145728"), want: true},
		{name: "wrapped", err: fmt.Errorf("write: %w", apierrors.NewInternalError(errors.New("etcdserver: request is too large"))), want: true},
		{name: "a conflict", err: apierrors.NewConflict(v1alpha1.GroupVersion.WithResource("ippools").GroupResource(), "p", errors.New("changed")), want: false},
		{name: "nil", err: nil, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isTooLarge(tt.err); got != tt.want {
				t.Errorf("isTooLarge(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
