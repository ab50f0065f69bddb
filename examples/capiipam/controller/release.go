package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/examples/internal/conflict"
)

// finalize releases the IPAddress of a claim being deleted, counting the
// pool's reuse grace period from the claim's deletion timestamp, then
// removes ClaimFinalizer if the claim carries it. This provider puts no
// finalizer on a claim (its IPAddress's owner reference and
// AddressFinalizer drive the release, see addressReconciler), so a claim is
// seen deleting only while another finalizer holds it: ClaimFinalizer
// from an older version of this provider or from the in-cluster provider,
// the garbage collector's foregroundDeletion, another controller's.
func (r *claimReconciler) finalize(ctx context.Context, claim *ipamv1.IPAddressClaim) (reconcile.Result, error) {
	ip := &ipamv1.IPAddress{}
	// Uncached: the informer may not show an IPAddress created just now.
	switch err := r.reader.Get(ctx, client.ObjectKeyFromObject(claim), ip); {
	case apierrors.IsNotFound(err):
		ip = nil
	case err != nil:
		return reconcile.Result{}, err
	}
	if ip != nil && poolOf(ip).Kind != "" && ownedBy(ip, claim) {
		if res, err := r.release(ctx, ip, claim.DeletionTimestamp.Time); !res.IsZero() || err != nil {
			return res, err
		}
	}
	if !controllerutil.RemoveFinalizer(claim, ClaimFinalizer) {
		return reconcile.Result{}, nil
	}
	if err := r.client.Update(ctx, claim); err != nil && !apierrors.IsNotFound(err) {
		return conflict.Requeue(err)
	}
	return reconcile.Result{}, nil
}

// release frees ip's address once the pool's reuse grace period after
// since is over (a non-zero result asks to come back then). It deletes ip
// first (AddressFinalizer keeps it, and the address it names, while the
// lock goes), then the lock, then AddressFinalizer: a retry after a stop
// finds the IPAddress, and with it the lock's name. The in-memory pools
// free the address when the informer shows the IPAddress gone.
func (r *claimReconciler) release(ctx context.Context, ip *ipamv1.IPAddress, since time.Time) (reconcile.Result, error) {
	if wait := r.graceLeft(ctx, poolOf(ip), since); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	if ip.DeletionTimestamp.IsZero() {
		// Gone already: released by another process (whose lock of the
		// address may be a new claim's by now), nothing is left to do.
		if err := r.client.Delete(ctx, ip, client.Preconditions{UID: &ip.UID}); err != nil {
			return conflict.Requeue(err)
		}
	}
	if err := r.unlockHeld(ctx, ip); err != nil {
		return reconcile.Result{}, err
	}
	return conflict.Requeue(r.removeAddressFinalizer(ctx, ip))
}

// removeAddressFinalizer removes AddressFinalizer from ip with a JSON
// patch that tests the entry it removes: no resourceVersion is needed (the
// delete just before moved it), and no other finalizer is lost.
func (r *claimReconciler) removeAddressFinalizer(ctx context.Context, ip *ipamv1.IPAddress) error {
	i := slices.Index(ip.Finalizers, AddressFinalizer)
	if i < 0 {
		return nil
	}
	patch := fmt.Sprintf(`[{"op":"test","path":"/metadata/finalizers/%d","value":%q},{"op":"remove","path":"/metadata/finalizers/%d"}]`, i, AddressFinalizer, i)
	err := r.client.Patch(ctx, ip, client.RawPatch(types.JSONPatchType, []byte(patch)))
	if apierrors.IsNotFound(err) {
		return nil
	}
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || isUnprocessable(err) {
		// The test failed: the finalizers changed since ip was read.
		return apierrors.NewConflict(ipamv1.GroupVersion.WithResource("ipaddresses").GroupResource(), ip.Name, err)
	}
	return err
}

func isUnprocessable(err error) bool {
	var s apierrors.APIStatus
	return errors.As(err, &s) && s.Status().Code == 422
}

// graceLeft returns how long an address released at since stays held: the
// pool's addressReuseGracePeriodSeconds after since. A pool that is gone
// or being deleted holds nothing (a teardown is not slowed down), as in
// the in-cluster provider.
func (r *claimReconciler) graceLeft(ctx context.Context, key poolKey, since time.Time) time.Duration {
	pool := newPool(key.Kind)()
	if err := r.client.Get(ctx, key.name(), pool); err != nil || !pool.GetDeletionTimestamp().IsZero() {
		return 0
	}
	g := pool.PoolSpec().AddressReuseGracePeriodSeconds
	if g == nil || *g <= 0 {
		return 0
	}
	return since.Add(time.Duration(*g) * time.Second).Sub(r.now())
}

// claimOwner returns ip's controller owner reference if it is an
// IPAddressClaim (as the contract wants, and as this provider and the
// in-cluster provider create them), or nil.
func claimOwner(ip *ipamv1.IPAddress) *metav1.OwnerReference {
	ref := metav1.GetControllerOf(ip)
	if ref == nil || ref.Kind != "IPAddressClaim" {
		return nil
	}
	if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || gv.Group != ipamv1.GroupVersion.Group {
		return nil
	}
	return ref
}

// ownedBy reports whether ip was made for claim: its claim owner reference
// names claim's UID. An IPAddress of the claim's name owned by another UID
// is an earlier claim's of the same name, deleted and made again while
// its IPAddress was still being released. One with no claim owner
// reference has only its name to go by: claim's.
func ownedBy(ip *ipamv1.IPAddress, claim *ipamv1.IPAddressClaim) bool {
	ref := claimOwner(ip)
	return ref == nil || ref.UID == claim.UID
}
