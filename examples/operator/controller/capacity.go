package controller

import (
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
)

// Capacity (why pools are limited).
//
// One IPPool's status holds every allocation and must fit in one etcd
// object. A pool hands out at most Options.MaxAllocations addresses (or its
// spec.maxAllocations, if lower); its CapacityLimited condition says how many
// it has and turns True at the limit, and a claim that would need one more
// waits with Ready=False, reason CapacityLimited, and one Warning Event. If
// the API server refuses a status as too large (a limit set above what etcd
// holds), the pool says so (reason StatusTooLarge) and, until it is
// rebuilt, hands out no more addresses than its status held when it last
// fitted, rather than retry a write that cannot succeed. A pool whose
// status is already at the edge (written by someone else, or by a process
// with a higher limit), so that not even its CacheReady condition fits, gets
// one Warning Event (StatusTooLarge) and is not served; the refused write is
// not retried until the pool changes.

// DefaultMaxAllocations is the default limit of addresses one IPPool hands
// out. An IPPool keeps every allocation in its status map, and the whole
// object must fit in one etcd value (etcd's default request limit, 1.5 MiB):
// on kube-apiserver 1.34 with etcd 3.6, a status write fails with
// "etcdserver: request is too large" from about 44,900 IPv4 allocations, or
// 29,000 when every IPv6 address is spelled in full (39 characters), as
// TestStatusMapCeiling measures. The default stays 30% below the lower one.
// A dual-stack pool keeps both families in one status: each family hands
// out at most half the limit (see poolLimit).
const DefaultMaxAllocations = 20000

// CapacityLimitedType is the IPPool condition that is True while the pool
// has handed out as many addresses as its limit allows; new claims wait.
const CapacityLimitedType = "CapacityLimited"

// Reasons of the IPPool's CapacityLimited condition.
const (
	ReasonLimitReached = "LimitReached"
	ReasonBelowLimit   = "BelowLimit"
	// ReasonStatusTooLarge: the API server refused the pool's status with
	// one more allocation (the limit is above what etcd holds).
	ReasonStatusTooLarge = "StatusTooLarge"
)

// errCapacityLimited reports that a pool has handed out as many addresses
// as its limit allows (or the API server refused its status as too large).
var errCapacityLimited = errors.New("pool at its allocation limit")

// poolLimit returns the allocation limit of each part of a pool with spec:
// limit (the operator's -max-allocations-per-pool), or spec.maxAllocations
// if lower. The operator's limit bounds the entries of one pool's status
// (its etcd object), which a dual-stack pool shares between its two parts:
// each part then hands out at most half of it (at least one), and
// spec.maxAllocations, if lower, counts per part (it is the number of NICs
// the pool serves).
func poolLimit(spec v1alpha1.IPPoolSpec, limit int) int {
	if spec.DualStack() {
		limit = max(limit/2, 1)
	}
	if spec.MaxAllocations != nil && int(*spec.MaxAllocations) < limit {
		return int(*spec.MaxAllocations)
	}
	return limit
}

// capacityCondition returns the CapacityLimited condition of a pool at
// generation gen that has handed out used addresses under limit; ceiling,
// if not 0, is the number at which the API server refused its status.
func capacityCondition(used, limit, ceiling int, gen int64) conditions.Condition {
	most := limit
	if ceiling > 0 && ceiling < limit {
		most = ceiling
	}
	c := conditions.Condition{Type: CapacityLimitedType, ObservedGeneration: gen,
		Status: conditions.ConditionFalse, Reason: ReasonBelowLimit,
		Message: fmt.Sprintf("%d of at most %d addresses handed out", used, most)}
	if most < limit && used >= most {
		c.Status, c.Reason = conditions.ConditionTrue, ReasonStatusTooLarge
		c.Message = fmt.Sprintf("%d addresses handed out: the API server refused the status with more "+
			"(it must fit in one etcd object); new claims wait until the pool is rebuilt. "+
			"Set -max-allocations-per-pool or spec.maxAllocations below %d", used, ceiling)
		return c
	}
	if used >= limit {
		c.Status, c.Reason = conditions.ConditionTrue, ReasonLimitReached
		c.Message = fmt.Sprintf("%d of at most %d addresses handed out: new claims wait "+
			"(one IPPool keeps every allocation in its status, which must fit in one etcd object; "+
			"spread VMs over several pools to grow beyond it)", used, limit)
	}
	return c
}

// setCapacity sets the CapacityLimited condition of st, the status of the
// pool whose cache is s, and reports whether it changed. Its limit applies
// to each part of a dual-stack pool: the condition is True when either
// part is at it, and its message counts each part.
func setCapacity(st *v1alpha1.IPPoolStatus, s *poolSet, limit, ceiling int, gen int64, now time.Time) bool {
	c := capacityCondition(s.Len(), limit, ceiling, gen)
	if s.ipv6 != nil {
		c.Message += fmt.Sprintf(" (the limit applies to each family: IPv4 %d, IPv6 %d handed out)", s.cidr.Len(), s.ipv6.Len())
	}
	var changed bool
	st.Conditions, changed = kube.SetMeta(st.Conditions, c, now)
	return changed
}

// isTooLarge reports whether the API server refused a write because the
// object would not fit in etcd (or in the request size it accepts).
func isTooLarge(err error) bool {
	return apierrors.IsRequestEntityTooLargeError(err) || (err != nil && strings.Contains(err.Error(), "request is too large"))
}
