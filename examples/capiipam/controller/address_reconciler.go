package controller

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/conflict"
)

// addressReconciler releases the IPAddresses of this provider's pools
// whose claim is gone. A claim carries no finalizer of this provider: when
// it is deleted it goes at once, and its IPAddress, which names it as
// controller owner and carries AddressFinalizer, stays behind. Then:
//
//   - an IPAddress whose claim owner no longer exists (its UID is not the
//     claim of that name's, or no claim has that name, as read from the
//     API server) is deleted, with its UID as a precondition: what the
//     garbage collector does for the owner reference, done here too so
//     that the release does not wait on it (or need one: envtest runs
//     none);
//   - an IPAddress being deleted (by that, by the garbage collector, by
//     anyone) whose claim is gone is released (releaser.release):
//     after the pool's reuse grace period counted from its own deletion
//     timestamp, its lock is deleted, then AddressFinalizer removed;
//     unless the Cluster its cluster-name label names is paused (a
//     Cluster that is gone pauses nothing).
//
// An IPAddress being deleted whose claim exists is left to the claim: kept
// while the claim lives (AddressFinalizer guards it against an accidental
// delete), released by the claim's reconcile once the claim is deleted.
type addressReconciler struct {
	client  client.Client // cached reads, writes
	reader  client.Reader // uncached reads: a claim the informer may not show yet
	release *releaser     // shared with the claim reconciler
}

func (r *addressReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ip := &ipamv1.IPAddress{}
	if err := r.client.Get(ctx, req.NamespacedName, ip); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	deleting := !ip.DeletionTimestamp.IsZero()
	switch {
	case poolOf(ip).Kind == "":
		return reconcile.Result{}, nil
	case !deleting && claimOwner(ip) == nil:
		return reconcile.Result{}, nil // nothing the garbage collector would delete
	case deleting && !controllerutil.ContainsFinalizer(ip, AddressFinalizer):
		return reconcile.Result{}, nil // released
	}
	switch gone, err := r.claimGone(ctx, ip); {
	case err != nil:
		return reconcile.Result{}, err
	case !gone:
		return reconcile.Result{}, nil
	}
	if !deleting {
		// The update that sets the deletion timestamp brings it back.
		return conflict.Requeue(r.client.Delete(ctx, ip, client.Preconditions{UID: &ip.UID}))
	}
	switch paused, err := r.clusterPaused(ctx, ip); {
	case err != nil:
		return reconcile.Result{}, err
	case paused:
		return reconcile.Result{}, nil // the Cluster's unpausing brings it back
	}
	return r.release.release(ctx, ip, ip.DeletionTimestamp.Time)
}

// claimGone reports whether the claim ip was made for is gone: its claim
// owner reference's (name and UID), else the one its claimRef names. The
// informer cache may not show a claim another process serves yet, so a
// claim missing from it is read from the API server.
func (r *addressReconciler) claimGone(ctx context.Context, ip *ipamv1.IPAddress) (bool, error) {
	name, uid := ip.Spec.ClaimRef.Name, types.UID("")
	if ref := claimOwner(ip); ref != nil {
		name, uid = ref.Name, ref.UID
	}
	if name == "" {
		return false, nil // names no claim: not this provider's to judge
	}
	key := types.NamespacedName{Namespace: ip.Namespace, Name: name}
	claim := &ipamv1.IPAddressClaim{}
	if err := r.client.Get(ctx, key, claim); err == nil && (uid == "" || claim.UID == uid) {
		return false, nil
	}
	switch err := r.reader.Get(ctx, key, claim); {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, err
	}
	return uid != "" && claim.UID != uid, nil
}

// clusterPaused reports whether the Cluster ip's cluster-name label names
// is paused. A Cluster that is gone pauses nothing: the claim is gone too.
func (r *addressReconciler) clusterPaused(ctx context.Context, ip *ipamv1.IPAddress) (bool, error) {
	name := ip.Labels[ClusterNameLabel]
	if name == "" {
		return false, nil
	}
	cluster := &clusterv1.Cluster{}
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: ip.Namespace, Name: name}, cluster); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return clusterPaused(cluster), nil
}

// startCheckDelay is how long an IPAddress a start lists, not being
// deleted, waits before its claim is checked (for one deleted while no
// provider ran). A fleet's start lists one per bound claim: checked at
// once, they would compete with the pools' rebuild and the new claims for
// the CPU (BenchmarkStartupBound). An IPAddress being deleted is not
// delayed.
const startCheckDelay = 5 * time.Second

// laterAtStart queues an IPAddress at once, except one a start lists that
// is not being deleted, which waits startCheckDelay.
type laterAtStart struct{}

func (laterAtStart) Create(_ context.Context, e event.CreateEvent, q queue) {
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(e.Object)}
	if e.IsInInitialList && e.Object.GetDeletionTimestamp().IsZero() {
		q.AddAfter(req, startCheckDelay)
		return
	}
	q.Add(req)
}
func (laterAtStart) Update(_ context.Context, e event.UpdateEvent, q queue) {
	q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(e.ObjectNew)})
}
func (laterAtStart) Delete(context.Context, event.DeleteEvent, queue)   {}
func (laterAtStart) Generic(context.Context, event.GenericEvent, queue) {}

// releaseEvents passes the IPAddress events after which one may need
// releasing: its creation (and each one an informer lists at start) when
// it has a claim owner or is being deleted, and a change of its deletion
// timestamp or owner references (not the release's own finalizer
// removal). Deletes pass nothing: a deleted IPAddress is released.
type releaseEvents struct{ predicate.Funcs }

func (releaseEvents) Create(e event.CreateEvent) bool {
	ip, ok := e.Object.(*ipamv1.IPAddress)
	return ok && ours(ip) && (claimOwner(ip) != nil || !ip.DeletionTimestamp.IsZero())
}
func (releaseEvents) Delete(event.DeleteEvent) bool   { return false }
func (releaseEvents) Generic(event.GenericEvent) bool { return false }

func (releaseEvents) Update(e event.UpdateEvent) bool {
	o, n := e.ObjectOld, e.ObjectNew
	if !ours(n) {
		return false
	}
	return !n.GetDeletionTimestamp().Equal(o.GetDeletionTimestamp()) || len(n.GetOwnerReferences()) != len(o.GetOwnerReferences())
}

// ours reports whether obj is an IPAddress of this provider's pools.
func ours(obj client.Object) bool {
	ip, ok := obj.(*ipamv1.IPAddress)
	return ok && ip.Spec.PoolRef.APIGroup == v1alpha1.GroupVersion.Group
}

// addressOfClaim maps a deleted claim to its IPAddress (of its name, and
// the one its addressRef names if that differs).
func addressOfClaim(_ context.Context, obj client.Object) []reconcile.Request {
	claim, ok := obj.(*ipamv1.IPAddressClaim)
	if !ok || claim.Spec.PoolRef.APIGroup != v1alpha1.GroupVersion.Group {
		return nil
	}
	reqs := []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(claim)}}
	if n := claim.Status.AddressRef.Name; n != "" && n != claim.Name {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: claim.Namespace, Name: n}})
	}
	return reqs
}

// claimDeleted passes a claim's deletion only.
var claimDeleted = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// addressesOfCluster maps a Cluster to the IPAddresses its cluster-name
// label names: those of gone claims wait for it to unpause.
func addressesOfCluster(c client.Client) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		var list ipamv1.IPAddressList
		if err := c.List(ctx, &list, client.InNamespace(obj.GetNamespace()), client.MatchingLabels{ClusterNameLabel: obj.GetName()}, client.UnsafeDisableDeepCopy); err != nil {
			return nil
		}
		reqs := make([]reconcile.Request, 0, len(list.Items))
		for _, ip := range list.Items {
			if !ip.DeletionTimestamp.IsZero() {
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&ip)})
			}
		}
		return reqs
	}
}
