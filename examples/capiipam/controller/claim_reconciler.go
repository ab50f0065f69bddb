package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/conflict"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/kube"
)

// Reasons of a claim's Ready condition: Cluster API's own, and Allocated
// for True.
const (
	ReasonAllocated        = "Allocated"
	ReasonAllocationFailed = ipamv1.IPAddressClaimReadyAllocationFailedReason
	ReasonPoolNotReady     = ipamv1.IPAddressClaimReadyPoolNotReadyReason
	ReasonPoolExhausted    = ipamv1.IPAddressClaimReadyPoolExhaustedReason
)

// claimReconciler answers IPAddressClaims that name a pool of this
// provider with an IPAddress of the claim's name, and releases it when a
// claim is seen being deleted.
type claimReconciler struct {
	client  client.Client // cached reads, writes
	reader  client.Reader // uncached reads: what the informer may not show yet
	scheme  *runtime.Scheme
	cache   *poolCache
	locks   *addressLocks
	release *releaser // shared with the address reconciler
	now     func() time.Time
	waiting time.Duration
}

func (r *claimReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	claim := &ipamv1.IPAddressClaim{}
	if err := r.client.Get(ctx, req.NamespacedName, claim); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if claim.Spec.PoolRef.APIGroup != v1alpha1.GroupVersion.Group {
		return reconcile.Result{}, nil
	}
	if hasKey(claim.Annotations, PausedAnnotation) {
		return reconcile.Result{}, nil
	}
	switch paused, err := r.clusterPaused(ctx, claim); {
	case err != nil:
		return reconcile.Result{}, err
	case paused:
		return reconcile.Result{}, nil
	}
	if !claim.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, claim)
	}
	key, poolObj, failed := r.claimedPool(ctx, claim)
	if failed != nil {
		return r.fail(ctx, claim, *failed)
	}
	if hasKey(poolObj.GetAnnotations(), PausedAnnotation) {
		return reconcile.Result{}, nil
	}
	e, uid := r.cache.Get(key)
	if e == nil || uid != poolObj.GetUID() || !poolObj.GetDeletionTimestamp().IsZero() {
		// A bound claim keeps its address whatever this process's copy of
		// the pool (a restart, a second manager, a pool being deleted):
		// only claims that need an address wait for the rebuild.
		if ip, err := r.boundAddress(ctx, claim, key); ip != nil || err != nil {
			if err != nil {
				return reconcile.Result{}, err
			}
			return r.ready(ctx, claim, ip)
		}
		return r.wait(ctx, claim, ReasonPoolNotReady, fmt.Sprintf("%s: not served yet by this process", key))
	}
	ip, res, err := r.ensureAddress(ctx, &claimRequest{claim: claim, key: key, poolObj: poolObj, entry: e})
	if ip == nil {
		return res, err
	}
	return r.ready(ctx, claim, ip)
}

// maxPicks bounds the addresses one reconcile of a claim tries.
const maxPicks = 8

// failure is a Ready=False to write on a claim.
type failure struct{ reason, message string }

// claimedPool returns the pool object claim names, or why it cannot be
// used.
func (r *claimReconciler) claimedPool(ctx context.Context, claim *ipamv1.IPAddressClaim) (poolKey, v1alpha1.Pool, *failure) {
	ref := claim.Spec.PoolRef
	var key poolKey
	switch ref.Kind {
	case v1alpha1.PoolKind:
		key = poolKey{Kind: ref.Kind, Namespace: claim.Namespace, Name: ref.Name}
	case v1alpha1.GlobalPoolKind:
		key = poolKey{Kind: ref.Kind, Name: ref.Name}
	default:
		return key, nil, &failure{ReasonAllocationFailed, fmt.Sprintf("poolRef kind %q of apiGroup %s is not a pool kind: want %s or %s",
			ref.Kind, ref.APIGroup, v1alpha1.PoolKind, v1alpha1.GlobalPoolKind)}
	}
	obj := newPool(key.Kind)()
	if err := r.client.Get(ctx, key.name(), obj); err != nil {
		if apierrors.IsNotFound(err) {
			return key, nil, &failure{ReasonPoolNotReady, fmt.Sprintf("%s not found", key)}
		}
		return key, nil, &failure{ReasonPoolNotReady, fmt.Sprintf("%s: %v", key, err)}
	}
	return key, obj, nil
}

// ensureAddress returns q's claim's committed IPAddress, allocating one
// if it has none. A nil IPAddress comes with the result to return.
func (r *claimReconciler) ensureAddress(ctx context.Context, q *claimRequest) (*ipamv1.IPAddress, reconcile.Result, error) {
	claim, key := q.claim, q.key
	ip := &ipamv1.IPAddress{}
	err := r.client.Get(ctx, client.ObjectKeyFromObject(claim), ip)
	switch {
	case apierrors.IsNotFound(err):
		ip = nil
	case err != nil:
		return nil, reconcile.Result{}, err
	}
	found := ip != nil
	if ip == nil {
		var res reconcile.Result
		if ip, res, err = r.createPicking(ctx, q); ip == nil {
			return nil, res, err
		}
	}
	if !ownedBy(ip, claim) {
		// An earlier claim of this name was deleted and this one made
		// while its IPAddress is being released: wait for it to go.
		res, err := r.wait(ctx, claim, ReasonAllocationFailed,
			fmt.Sprintf("IPAddress %s/%s of an earlier claim of this name is being released", ip.Namespace, ip.Name))
		return nil, res, err
	}
	if poolOf(ip) != key {
		res, err := r.fail(ctx, claim, failure{ReasonAllocationFailed,
			fmt.Sprintf("IPAddress %s/%s exists and names another pool (%s %s)", ip.Namespace, ip.Name, ip.Spec.PoolRef.Kind, ip.Spec.PoolRef.Name)})
		return nil, res, err
	}
	if controllerutil.ContainsFinalizer(ip, AddressFinalizer) {
		if found && claim.Status.AddressRef.Name != ip.Name {
			// Made by a process that stopped before binding the claim: its
			// lock may have been reclaimed since (package reclaim).
			return r.recheckFound(ctx, q, ip)
		}
		return ip, reconcile.Result{}, nil
	}
	committed, err := r.commitLegacy(ctx, q, ip)
	if err != nil || !committed {
		// Lost to another IPAddress of the same address, or a write
		// conflict: pick again.
		return nil, reconcile.Result{Requeue: true}, ignoreRace(err)
	}
	return ip, reconcile.Result{}, nil
}

// createPicking creates q's claim's IPAddress (create). An address found
// locked by another (a split brain, whose other manager walks the same
// addresses) is marked taken: it picks again here, up to maxPicks times,
// rather than through the queue's growing backoff. A nil IPAddress comes
// with the result and error to return.
func (r *claimReconciler) createPicking(ctx context.Context, q *claimRequest) (*ipamv1.IPAddress, reconcile.Result, error) {
	var (
		ip  *ipamv1.IPAddress
		f   *failure
		err error
	)
	for range maxPicks {
		if ip, f, err = r.create(ctx, q); !errors.Is(err, errPickAgain) {
			break
		}
	}
	switch {
	case errors.Is(err, errPickAgain):
		// Still taken: again soon, without backoff.
		return nil, reconcile.Result{RequeueAfter: r.waiting / 10}, nil
	case f != nil:
		res, err := r.fail(ctx, q.claim, *f)
		if waits(f.reason) {
			res.RequeueAfter = r.waiting
		}
		return nil, res, err
	case err != nil:
		// A lost race (the IPAddress another process created is gone
		// again) is retried at once.
		return nil, reconcile.Result{Requeue: true}, ignoreRace(err)
	}
	return ip, reconcile.Result{}, nil
}

// boundAddress returns the claim's IPAddress if the claim is bound: the
// IPAddress exists, names the claim's pool and carries the finalizer of a
// committed address. Otherwise it returns nil (and an error only when the
// read failed).
func (r *claimReconciler) boundAddress(ctx context.Context, claim *ipamv1.IPAddressClaim, key poolKey) (*ipamv1.IPAddress, error) {
	ip := &ipamv1.IPAddress{}
	switch err := r.client.Get(ctx, client.ObjectKeyFromObject(claim), ip); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	if poolOf(ip) != key || !ownedBy(ip, claim) || !controllerutil.ContainsFinalizer(ip, AddressFinalizer) || !ip.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	return ip, nil
}

// ready writes the claim's addressRef and Ready=True.
func (r *claimReconciler) ready(ctx context.Context, claim *ipamv1.IPAddressClaim, ip *ipamv1.IPAddress) (reconcile.Result, error) {
	upd := claim.DeepCopy()
	upd.Status.AddressRef = ipamv1.IPAddressReference{Name: ip.Name}
	r.setReady(upd, conditions.ConditionTrue, ReasonAllocated, fmt.Sprintf("%s/%d", ip.Spec.Address, derefPrefix(ip.Spec.Prefix)))
	return conflict.Requeue(r.writeStatus(ctx, claim, upd))
}

// fail writes Ready=False with f, and no addressRef.
func (r *claimReconciler) fail(ctx context.Context, claim *ipamv1.IPAddressClaim, f failure) (reconcile.Result, error) {
	upd := claim.DeepCopy()
	upd.Status.AddressRef = ipamv1.IPAddressReference{}
	r.setReady(upd, conditions.ConditionFalse, f.reason, f.message)
	return conflict.Requeue(r.writeStatus(ctx, claim, upd))
}

// wait is fail, retried after r.waiting.
func (r *claimReconciler) wait(ctx context.Context, claim *ipamv1.IPAddressClaim, reason, message string) (reconcile.Result, error) {
	res, err := r.fail(ctx, claim, failure{reason, message})
	res.RequeueAfter = r.waiting
	return res, err
}

func (r *claimReconciler) setReady(claim *ipamv1.IPAddressClaim, status conditions.Status, reason, message string) {
	claim.Status.Conditions, _ = kube.SetMeta(claim.Status.Conditions, conditions.Condition{
		Type: ipamv1.IPAddressClaimReadyCondition, Status: status, Reason: reason, Message: message,
		ObservedGeneration: claim.Generation,
	}, r.now())
}

// writeStatus writes upd's status if it differs from claim's: only this
// provider writes a claim's status. The patch tests the claim's UID, so a
// status meant for a claim that was deleted and made again under its name
// meanwhile does not land on the new one (whose reconcile writes its
// own): that is a Conflict, and NotFound the claim gone, for
// conflict.Requeue. No resourceVersion is needed, and a failed test
// costs one read.
func (r *claimReconciler) writeStatus(ctx context.Context, claim, upd *ipamv1.IPAddressClaim) error {
	if equality.Semantic.DeepEqual(claim.Status, upd.Status) {
		return nil
	}
	status, err := json.Marshal(upd.Status)
	if err != nil {
		return err
	}
	patch := fmt.Sprintf(`[{"op":"test","path":"/metadata/uid","value":%q},{"op":"add","path":"/status","value":%s}]`, claim.UID, status)
	err = r.client.Status().Patch(ctx, upd, client.RawPatch(types.JSONPatchType, []byte(patch)))
	if !isUnprocessable(err) {
		return err
	}
	// A failed test and an invalid status are both 422: the claim, read
	// again, tells them apart (an invalid status is returned as it is, for
	// the back-off).
	now := &ipamv1.IPAddressClaim{}
	if err := r.reader.Get(ctx, client.ObjectKeyFromObject(claim), now); err != nil {
		return err
	}
	if now.UID != claim.UID {
		return apierrors.NewConflict(ipamv1.GroupVersion.WithResource("ipaddressclaims").GroupResource(), claim.Name, err)
	}
	return err
}

// clusterPaused reports whether the claim's Cluster is paused. A claim
// whose Cluster cannot be found is treated as paused unless it is being
// deleted, as the in-cluster provider does: its paused state is unknown.
func (r *claimReconciler) clusterPaused(ctx context.Context, claim *ipamv1.IPAddressClaim) (bool, error) {
	name := clusterName(claim)
	if name == "" {
		return false, nil
	}
	cluster := &clusterv1.Cluster{}
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: claim.Namespace, Name: name}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return claim.DeletionTimestamp.IsZero(), nil
		}
		return false, err
	}
	return clusterPaused(cluster), nil
}

// clusterName returns the name of the claim's Cluster, or "".
func clusterName(claim *ipamv1.IPAddressClaim) string {
	if claim.Spec.ClusterName != "" {
		return claim.Spec.ClusterName
	}
	return claim.Labels[ClusterNameLabel]
}

// clusterPaused reports whether c is paused, by spec or annotation.
func clusterPaused(c *clusterv1.Cluster) bool {
	return (c.Spec.Paused != nil && *c.Spec.Paused) || hasKey(c.Annotations, PausedAnnotation)
}

func derefPrefix(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// ignoreRace drops the errors of a lost race, which a requeue retries.
func ignoreRace(err error) error {
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err) || errors.Is(err, ipam.ErrInUse) {
		return nil
	}
	return err
}

// recheckFound returns ip, a committed IPAddress found for q's claim
// before the claim was bound to it, if it still holds its address's lock;
// otherwise it deletes ip, and the claim picks again.
func (r *claimReconciler) recheckFound(ctx context.Context, q *claimRequest, ip *ipamv1.IPAddress) (*ipamv1.IPAddress, reconcile.Result, error) {
	addr, err := ipam.ParseAddr(ip.Spec.Address)
	if err != nil {
		return ip, reconcile.Result{}, nil // no lock was ever taken for it
	}
	held, err := r.locks.recheck(ctx, q.key, addr, ip)
	if err != nil || held {
		if err != nil {
			return nil, reconcile.Result{}, err
		}
		return ip, reconcile.Result{}, nil
	}
	if err := r.locks.dropLost(ctx, ip); err != nil {
		return nil, reconcile.Result{}, err
	}
	return nil, reconcile.Result{Requeue: true}, nil
}
