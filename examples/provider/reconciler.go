package provider

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/conditions"
	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// Hypervisor reports a VM's NICs and the addresses the hypervisor sees on
// them (guest tools), in the order the hypervisor attached them.
type Hypervisor interface {
	NICs(ctx context.Context, m *infrav1.VMMachine) ([]readiness.NIC, error)
}

// Reconciler writes a VMMachine's status.addresses and VMProvisioned
// condition from its spec, its NICs and its Node. It writes only when
// something changed, so its own status writes do not make it loop.
//
// The zero value is not usable: Client is required.
type Reconciler struct {
	// Client reads VMMachines and Nodes and writes the status subresource.
	Client client.Client

	// Hypervisor reports the NICs; nil reads them from status.network,
	// where a hypervisor sync writes them.
	Hypervisor Hypervisor

	// Policy is readiness's policy: Strict (the zero value) or Counting.
	Policy readiness.Policy

	// Ignore lists prefixes whose addresses never count (virtual IPs).
	Ignore []netip.Prefix

	// Now is the clock for transition times; nil means time.Now.
	Now func() time.Time

	// PendingRequeue, when positive, asks to be called again after that
	// long while the machine waits for addresses (not for an invalid spec
	// to be fixed): needed with a Hypervisor that is polled rather than
	// watched. Zero relies on watches alone.
	PendingRequeue time.Duration
}

// Reconcile implements reconcile.Reconciler for VMMachines. A missing
// machine or one being deleted is left alone; a missing Node means no Node
// addresses yet. A status write that conflicts with a newer version of the
// machine returns the conflict, so controller-runtime retries on fresh data.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var m infrav1.VMMachine
	if err := r.Client.Get(ctx, req.NamespacedName, &m); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !m.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}

	nics := ReportedNICs(m.Status.Network)
	if r.Hypervisor != nil {
		var err error
		if nics, err = r.Hypervisor.NICs(ctx, &m); err != nil {
			return reconcile.Result{}, fmt.Errorf("provider: %s: hypervisor NICs: %w", req.NamespacedName, err)
		}
	}

	hostname := Hostname(&m)
	var node *corev1.Node
	var n corev1.Node
	switch err := r.Client.Get(ctx, types.NamespacedName{Name: hostname}, &n); {
	case err == nil:
		node = &n
	case !apierrors.IsNotFound(err):
		return reconcile.Result{}, fmt.Errorf("provider: %s: get node %q: %w", req.NamespacedName, hostname, err)
	}

	v := Observe(&m, nics, NodeAddrs(node), r.Ignore, r.Policy)
	status, changed := ApplyVerdict(m.Status, hostname, m.Generation, v, r.now())
	if changed {
		if c, ok := kube.FindMeta(status.Conditions, ConditionVMProvisioned); ok {
			if err := conditions.Validate(c); err != nil {
				return reconcile.Result{}, fmt.Errorf("provider: %s: %w", req.NamespacedName, err)
			}
		}
		m.Status = status
		if err := r.Client.Status().Update(ctx, &m); err != nil {
			return reconcile.Result{}, fmt.Errorf("provider: %s: update status: %w", req.NamespacedName, err)
		}
	}
	// An invalid spec waits for a spec change, which the watch delivers.
	if !v.Ready && v.Reason != readiness.ReasonInvalidNetworkSpec && r.PendingRequeue > 0 {
		return reconcile.Result{RequeueAfter: r.PendingRequeue}, nil
	}
	return reconcile.Result{}, nil
}

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// nodeAddressesChanged reports whether a Node update changed what the
// adapter reads, so kubelet's heartbeats do not wake every machine.
func nodeAddressesChanged(old, new *corev1.Node) bool {
	return !slices.Equal(old.Status.Addresses, new.Status.Addresses)
}
