package controller

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// nicOutcome is what one reconcile got for one NIC of a claim: a NIC of the
// spec (an address, or why not), or one that left the spec and whose address
// could not be released yet (Left, with Err).
type nicOutcome struct {
	Pool, MAC string
	Addr      netip.Addr          // handed out; the zero Addr when Err is set
	Addr6     netip.Addr          // handed out by a dual-stack pool's IPv6 part; zero when Err or Err6 is set
	Err6      error               // why a dual-stack pool's IPv6 part gave no address although Addr is set
	Held      *v1alpha1.NICStatus // the status entry kept while the pool cannot confirm it
	Left      bool                // the NIC left the spec; its address is still held
	Err       error               // why the NIC has no address (see outcomeReason)
}

// claimPlan is what a reconcile writes and does, decided from the outcomes
// alone: the NICs of the status, the Ready condition (its transition time
// is set by the writer), whether to retry after the waiting time, and the
// Warning Event to post, if any.
type claimPlan struct {
	NICs  []v1alpha1.NICStatus
	Ready conditions.Condition
	Wait  bool
	// Event is the reason of a Warning Event to post on the claim, with its
	// message; "" for none.
	Event, EventMessage string
}

// Why a NIC of the spec cannot get an address before any pool is asked.
var (
	errInvalidNIC   = errors.New("invalid NIC")               // its MAC or address does not parse
	errDuplicateMAC = errors.New("MAC held by another claim") // another live claim has it on the pool
)

// outcomeError is err, classified as kind for errors.Is, with err's text.
type outcomeError struct{ kind, err error }

func (e outcomeError) Error() string        { return e.err.Error() }
func (e outcomeError) Unwrap() error        { return e.err }
func (e outcomeError) Is(target error) bool { return target == e.kind }

// planClaim decides a claim's status from the outcomes of its NICs, in
// order: the first NIC that has no address gives Ready's reason and
// message; every NIC that has or keeps one is listed. prevReason is the
// reason of the Ready condition as stored, so that the CapacityLimited
// Event is posted once, not on every retry. It does no I/O.
func planClaim(generation int64, prevReason string, outcomes []nicOutcome) claimPlan {
	var p claimPlan
	var failure *conditions.Condition
	for _, o := range outcomes {
		switch {
		case o.Err == nil && o.Err6 != nil:
			// IPv4 first: the NIC keeps its IPv4 address while the IPv6
			// part cannot give it one, and the claim says why.
			p.NICs = append(p.NICs, v1alpha1.NICStatus{MAC: o.MAC, Pool: o.Pool, Address: o.Addr.String()})
			reason := ipv6Reason(o.Err6)
			p.Wait = true
			if failure == nil {
				failure = &conditions.Condition{Type: v1alpha1.ReadyType, Status: conditions.ConditionFalse, Reason: reason,
					Message: fmt.Sprintf("nic %s has its IPv4 address %s but no IPv6 address: %v", o.MAC, o.Addr, o.Err6)}
			}
			if reason != ReasonIPv6AllocationFailed && prevReason != reason && p.Event == "" {
				p.Event, p.EventMessage = reason, fmt.Sprintf("nic %s: no IPv6 address (it keeps its IPv4 address %s): %v", o.MAC, o.Addr, o.Err6)
			}
			continue
		case o.Err == nil:
			st := v1alpha1.NICStatus{MAC: o.MAC, Pool: o.Pool, Address: o.Addr.String()}
			if o.Addr6.IsValid() {
				st.IPv6Address = o.Addr6.String()
			}
			p.NICs = append(p.NICs, st)
			continue
		case o.Held != nil:
			p.NICs = append(p.NICs, *o.Held) // a restart or a paused pool takes no address away
		}
		reason, wait := outcomeReason(o.Err)
		p.Wait = p.Wait || wait
		if o.Held != nil && !o.Left {
			continue // kept: the claim is not failed for it
		}
		if failure == nil {
			failure = &conditions.Condition{Type: v1alpha1.ReadyType, Status: conditions.ConditionFalse, Reason: reason, Message: o.Err.Error()}
		}
		if reason == ReasonCapacityLimited && prevReason != ReasonCapacityLimited && p.Event == "" {
			p.Event, p.EventMessage = ReasonCapacityLimited, fmt.Sprintf("nic %s: %v", o.MAC, o.Err)
		}
	}
	p.Ready = conditions.Condition{Type: v1alpha1.ReadyType, Status: conditions.ConditionTrue, Reason: ReasonAllocated,
		Message: fmt.Sprintf("%d NICs have their address", len(p.NICs))}
	if failure != nil {
		p.Ready = *failure
	}
	p.Ready.ObservedGeneration = generation
	return p
}

// outcomeReason is the Ready reason for a NIC that has no address, and
// whether the claim is retried after the waiting time: everything but an
// invalid NIC can resolve itself (the pool comes back, another claim lets
// go, an address is released, the limit is raised).
func outcomeReason(err error) (reason string, wait bool) {
	switch {
	case errors.Is(err, errInvalidNIC):
		return ReasonInvalidNIC, false
	case errors.Is(err, errDuplicateMAC):
		return ReasonDuplicateMAC, true
	case errors.Is(err, errPoolNotReady):
		return ReasonPoolNotReady, true
	case errors.Is(err, errPoolGone):
		return ReasonPoolNotFound, true
	case errors.Is(err, errCapacityLimited):
		return ReasonCapacityLimited, true
	}
	return ReasonAllocationFailed, true
}

// ipv6Reason is the Ready reason for a NIC that has its IPv4 address but
// no IPv6 address from a dual-stack pool's IPv6 part, for which err6 says why.
func ipv6Reason(err6 error) string {
	switch {
	case ipam.IsExhausted(err6):
		return ReasonIPv6Exhausted
	case errors.Is(err6, errCapacityLimited):
		return ReasonIPv6CapacityLimited
	}
	return ReasonIPv6AllocationFailed
}

// isOutcome reports whether err from allocating belongs in the claim's
// status (a reason outcomeReason names) rather than being returned for a
// retry with back-off (the API server's errors).
func isOutcome(err error) bool {
	return errors.Is(err, errPoolNotReady) || errors.Is(err, errPoolGone) || errors.Is(err, errCapacityLimited) ||
		ipam.IsExhausted(err) || ipam.IsConflict(err) || ipam.IsInputError(err)
}
