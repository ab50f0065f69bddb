package controller

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/examples/internal/conflict"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/kube"
)

// Finalizer is the finalizer the operator puts on every VMNetworkConfig so
// that its addresses are released before it goes away.
const Finalizer = "network.vmnetkit.dev/release-addresses"

// Reasons of a VMNetworkConfig's Ready condition.
const (
	ReasonAllocated        = "Allocated"
	ReasonPoolNotReady     = "PoolNotReady"
	ReasonPoolNotFound     = "PoolNotFound"
	ReasonAllocationFailed = "AllocationFailed"
	ReasonInvalidNIC       = "InvalidNIC"
	ReasonDuplicateMAC     = "DuplicateMAC"
	// ReasonCapacityLimited: the pool has handed out as many addresses as
	// its limit allows (its CapacityLimited condition is True); the claim
	// waits, and a Warning Event with this reason is posted on it once.
	ReasonCapacityLimited = "CapacityLimited"

	// The IPv6 part of a dual-stack pool gave a NIC no address although
	// the IPv4 part gave it one: the NIC keeps its IPv4 address (in
	// status.nics[].address, with ipv6Address empty), and the claim is
	// Ready=False with one of these reasons and retried after the waiting
	// time. For IPv6Exhausted and IPv6CapacityLimited a Warning Event with
	// the reason is posted on the claim once.
	//
	// ReasonIPv6Exhausted: the IPv6 part has no free address left in its
	// range.
	ReasonIPv6Exhausted = "IPv6Exhausted"
	// ReasonIPv6CapacityLimited: the IPv6 part has handed out as many
	// addresses as the pool's limit allows.
	ReasonIPv6CapacityLimited = "IPv6CapacityLimited"
	// ReasonIPv6AllocationFailed: any other reason (a requested IPv6
	// address held by another MAC, outside the range, ...).
	ReasonIPv6AllocationFailed = "IPv6AllocationFailed"
)

// claimReconciler gives each NIC of a VMNetworkConfig an address from its
// pool, records it in the pool's status first and in the claim's status
// second, and releases the addresses when the claim is deleted.
type claimReconciler struct {
	client  client.Client
	pools   *poolWriter
	events  record.EventRecorder
	now     func() time.Time
	waiting time.Duration // how soon a claim waiting for its pool is retried
}

func (r *claimReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	c := &v1alpha1.VMNetworkConfig{}
	if err := r.client.Get(ctx, req.NamespacedName, c); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !c.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, c)
	}
	if controllerutil.AddFinalizer(c, Finalizer) {
		if err := r.client.Update(ctx, c); err != nil {
			return conflict.Requeue(err)
		}
	}

	outcomes, err := r.serve(ctx, c)
	if err != nil {
		return reconcile.Result{}, err
	}
	p := planClaim(c.Generation, readyReason(c), outcomes)
	if p.Event != "" {
		r.events.Eventf(c, corev1.EventTypeWarning, p.Event, "%s", p.EventMessage)
	}
	st := v1alpha1.VMNetworkConfigStatus{ObservedGeneration: c.Generation, NICs: p.NICs, Conditions: c.Status.Conditions}
	st.Conditions, _ = kube.SetMeta(st.Conditions, p.Ready, r.now())
	if !equality.Semantic.DeepEqual(st, c.Status) {
		c.Status = st
		if err := r.client.Status().Update(ctx, c); err != nil {
			return conflict.Requeue(err)
		}
	}
	// One line per reconcile at -v 1 (controller-runtime's own start at 5).
	log.FromContext(ctx).V(1).Info("claim reconciled", "ready", p.Ready.Status, "reason", p.Ready.Reason, "nics", len(st.NICs), "wait", p.Wait)
	if p.Wait {
		return reconcile.Result{RequeueAfter: r.waiting}, nil
	}
	return reconcile.Result{}, nil
}

// serve releases what NICs that left the spec still hold and gives each NIC
// of the spec its address, in that order, and returns what happened to
// each for planClaim. An error of the API server is returned as is.
func (r *claimReconciler) serve(ctx context.Context, c *v1alpha1.VMNetworkConfig) ([]nicOutcome, error) {
	var out []nicOutcome
	for _, old := range c.Status.NICs {
		if hasNIC(c.Spec.NICs, old) {
			continue
		}
		if err := r.release(ctx, c, old.Pool, old.MAC); err != nil {
			if !errors.Is(err, errPoolNotReady) {
				return nil, err
			}
			held := old
			out = append(out, nicOutcome{Pool: old.Pool, MAC: old.MAC, Held: &held, Left: true, Err: err})
		}
	}
	for _, n := range c.Spec.NICs {
		mac, want, err := parseNIC(n)
		if err != nil {
			out = append(out, nicOutcome{Pool: n.Pool, MAC: n.MAC, Err: outcomeError{errInvalidNIC, err}})
			continue
		}
		holder, err := r.otherHolder(ctx, c, n.Pool, mac, true)
		if err != nil {
			return nil, err
		}
		if holder != "" {
			err := fmt.Errorf("nic %s on pool %s: claim %s has it", mac, n.Pool, holder)
			out = append(out, nicOutcome{Pool: n.Pool, MAC: mac, Err: outcomeError{errDuplicateMAC, err}})
			continue
		}
		res, err := r.pools.allocate(ctx, poolKey(c, n.Pool), mac, want)
		if err != nil && !isOutcome(err) {
			return nil, err
		}
		o := nicOutcome{Pool: n.Pool, MAC: mac, Addr: res.addr, Addr6: res.addr6, Err6: res.err6, Err: err}
		if errors.Is(err, errPoolNotReady) {
			if old, ok := heldAddress(c, mac, n); ok {
				o.Held = &old
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// finalize releases every address the claim holds or may hold (its status
// and its spec: an address may be in the pool's status before the claim's),
// then removes the finalizer.
func (r *claimReconciler) finalize(ctx context.Context, c *v1alpha1.VMNetworkConfig) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(c, Finalizer) {
		return reconcile.Result{}, nil
	}
	type nicKey struct{ pool, mac string }
	var held []nicKey
	for _, n := range c.Status.NICs {
		held = append(held, nicKey{n.Pool, n.MAC})
	}
	for _, n := range c.Spec.NICs {
		if mac, _, err := parseNIC(n); err == nil {
			held = append(held, nicKey{n.Pool, mac})
		}
	}
	for _, h := range held {
		if err := r.release(ctx, c, h.pool, h.mac); err != nil {
			if errors.Is(err, errPoolNotReady) {
				return reconcile.Result{RequeueAfter: r.waiting}, nil
			}
			return reconcile.Result{}, err
		}
	}
	controllerutil.RemoveFinalizer(c, Finalizer)
	if err := r.client.Update(ctx, c); err != nil {
		return conflict.Requeue(err)
	}
	log.FromContext(ctx).V(1).Info("released addresses", "nics", len(held))
	return reconcile.Result{}, nil
}

// release frees mac's address on pool for claim c, unless another live claim
// holds it (see macIndex).
func (r *claimReconciler) release(ctx context.Context, c *v1alpha1.VMNetworkConfig, pool, mac string) error {
	holder, err := r.otherHolder(ctx, c, pool, mac, false)
	if err != nil || holder != "" {
		return err
	}
	return r.pools.release(ctx, poolKey(c, pool), mac)
}

// readyReason returns the reason of c's Ready condition as stored, or "".
func readyReason(c *v1alpha1.VMNetworkConfig) string {
	cond, _ := kube.FindMeta(c.Status.Conditions, v1alpha1.ReadyType)
	return cond.Reason
}

// parseNIC returns the NIC's MAC in lowercase colon form and its requested
// address (the zero Addr if none).
func parseNIC(n v1alpha1.NIC) (mac string, want netip.Addr, err error) {
	mac, err = ipam.MACOwners.Canonical(n.MAC) // the pool's own rule: 6 bytes
	if err != nil {
		return "", want, fmt.Errorf("nic %q: %w", n.MAC, err)
	}
	if n.Address != "" {
		if want, err = ipam.ParseAddr(n.Address); err != nil {
			return "", want, fmt.Errorf("nic %q: address: %w", n.MAC, err)
		}
	}
	return mac, want, nil
}

// heldAddress returns the status entry of NIC n (MAC mac) if the claim's
// status is current and reports an address for it.
func heldAddress(c *v1alpha1.VMNetworkConfig, mac string, n v1alpha1.NIC) (v1alpha1.NICStatus, bool) {
	if c.Status.ObservedGeneration != c.Generation {
		return v1alpha1.NICStatus{}, false
	}
	for _, s := range c.Status.NICs {
		if s.MAC == mac && s.Pool == n.Pool && s.Address != "" && (n.Address == "" || n.Address == s.Address || n.Address == s.IPv6Address) {
			return s, true
		}
	}
	return v1alpha1.NICStatus{}, false
}

// hasNIC reports whether the spec still asks for s's MAC on s's pool.
func hasNIC(spec []v1alpha1.NIC, s v1alpha1.NICStatus) bool {
	for _, n := range spec {
		if mac, _, err := parseNIC(n); err == nil && mac == s.MAC && n.Pool == s.Pool {
			return true
		}
	}
	return false
}

func poolKey(c *v1alpha1.VMNetworkConfig, pool string) types.NamespacedName {
	return types.NamespacedName{Namespace: c.Namespace, Name: pool}
}
