package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
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
