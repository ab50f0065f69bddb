package controller

import (
	"fmt"
	"math"
	"time"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
)

// The pool's second condition: whether every IPAddress of the pool is one
// the pool holds.
const (
	AddressesValidType     = "AddressesValid"
	ReasonAddressesValid   = "AllHeld"
	ReasonAddressesInvalid = "NotHeld"
)

// writeCountsLocked writes e's counts into st, and AddressesValid as they
// say.
func writeCountsLocked(st *v1alpha1.PoolStatus, e *poolEntry, generation int64, now time.Time) {
	total, used, free, out, notHeld := e.countsLocked()
	st.Addresses = &v1alpha1.PoolStatusAddresses{Total: clampInt(total), Used: clampInt(used), Free: clampInt(free), OutOfRange: clampInt(out)}
	cond := conditions.Condition{Type: AddressesValidType, Status: conditions.ConditionTrue, Reason: ReasonAddressesValid,
		ObservedGeneration: generation, Message: "every IPAddress of the pool is held by it"}
	if notHeld > 0 {
		cond.Status, cond.Reason = conditions.ConditionFalse, ReasonAddressesInvalid
		cond.Message = fmt.Sprintf("%d IPAddresses are kept but not held by the pool: %d out of range, the others hold an address another IPAddress holds too", notHeld, out)
	}
	st.Conditions, _ = kube.SetMeta(st.Conditions, cond, now)
}

// clampInt is v as the status's int, math.MaxInt when larger (the counts
// of an IPv6 pool).
func clampInt(v uint64) int {
	if v > math.MaxInt {
		return math.MaxInt
	}
	return int(v)
}

// countsLocked returns the pool's address counts for the status, and how
// many IPAddresses the pool does not hold (out of range, or an address
// another IPAddress holds too). It walks no more than the addresses held
// twice.
func (e *poolEntry) countsLocked() (total, used, free, outOfRange, notHeld uint64) {
	s := e.ipamPool.Stats()
	size, _ := s.Size.Uint64()
	excluded, _ := s.Excluded.Uint64()
	reserved, _ := s.Reserved.Uint64()
	total = size - excluded - reserved
	free, _ = s.Free.Uint64()
	notHeld = uint64(e.outOfRange)
	for a, owners := range e.shared {
		for _, o := range owners {
			if held, ok := e.ipamPool.Lookup(a); e.objects[o] == a && (!ok || held != o) {
				notHeld++
			}
		}
	}
	return total, uint64(len(e.objects)), free, uint64(e.outOfRange), notHeld
}
