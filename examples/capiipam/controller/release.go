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

// Release without a claim finalizer (why this file is as it is).
//
// The contract lets a provider put a finalizer on the claim ("you probably
// need one"); this provider puts none, and so answers a claim with three
// writes (the lock, the IPAddress, the claim's status) where the
// finalizer would make four. The IPAddress carries what the release needs:
// the claim as controller owner (blockOwnerDeletion), the pool as a second
// owner, AddressFinalizer (ProtectAddress), the address, the pool, and
// the claim's Cluster in its cluster-name label. A deleted claim goes at
// once; its IPAddress stays, held by AddressFinalizer, and with it the
// address (in the lock, in every process's pool, and in a rebuild, which
// counts every IPAddress). The address reconciler then deletes an
// IPAddress whose claim owner is gone (read from the API server, by UID:
// a claim made again under the same name is not the owner), as the
// garbage collector does, so that the release needs none; once the
// IPAddress is being deleted (by that, by the collector, by anyone) and
// its claim is gone, it waits out the pool's reuse grace period counted
// from the IPAddress's deletion timestamp (kept by the API server, so a
// restart does not restart the wait) and the pause of the Cluster its
// label names (a Cluster that is gone pauses nothing), deletes the lock
// (with its UID as a precondition), and removes AddressFinalizer. The
// informer's delete event frees the address in memory.
//
// Every IPAddress event from the informer, those of its initial list
// included, is looked at, so IPAddresses whose claims went while no
// process ran are released at the next start; the look costs no request
// while the claim is in the informer cache. A claim seen being deleted
// (held by another finalizer: the collector's foregroundDeletion, or
// ClaimFinalizer, which older versions of this provider and the in-cluster
// provider put on claims) is released by the claim reconciler as before,
// the grace period counted from the claim's deletion timestamp, and
// ClaimFinalizer, if there, removed after. A claim made again under the
// name of one whose IPAddress is still held waits (Ready=False) for that
// IPAddress to go. An IPAddress being deleted while its claim lives is
// kept: AddressFinalizer guards it against an accidental delete.
//
// What the finalizer would have given and this gives up: a claim no
// longer lingers until its address is released, so whoever deleted it
// cannot wait on the claim for that; they can wait on the IPAddress
// (which is what holds the address). A claim deleted between its lock and
// its IPAddress gets the IPAddress anyway, owned by a UID that is gone,
// which is then released like any other. A process stopped between a lock
// and its IPAddress leaves the lock, which stays (its holder may be a
// create in flight) until a claim of the holder's name takes it again,
// the pool goes, or someone deletes it; meanwhile claims take other
// addresses, and try that one again only when the pool is exhausted and
// a resync is due, and a claim that finds it a minute old records a
// Warning Event (LockWithoutHolder) on the pool that names it
// (TestLeftoverLocks).

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
		if res, err := r.release.release(ctx, ip, claim.DeletionTimestamp.Time); !res.IsZero() || err != nil {
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

// releaser releases the IPAddress of a claim that is gone or going: one
// component, which the claim reconciler (a claim seen being deleted) and
// the address reconciler (an IPAddress whose claim is gone) both own. It
// is not poolEntry.freeLocked, which frees an address in memory when the
// informer shows its IPAddress gone.
type releaser struct {
	client client.Client // cached reads (the pool), writes
	locks  *addressLocks
	now    func() time.Time
}

// release frees ip's address once the pool's reuse grace period after
// since is over (a non-zero result asks to come back then). It deletes ip
// first (AddressFinalizer keeps it, and the address it names, while the
// address lock goes), then the address lock, then AddressFinalizer: a
// retry after a stop finds the IPAddress, and with it the lock's name. The
// in-memory pools free the address when the informer shows the IPAddress
// gone.
func (r *releaser) release(ctx context.Context, ip *ipamv1.IPAddress, since time.Time) (reconcile.Result, error) {
	if wait := r.graceLeft(ctx, poolOf(ip), since); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	if ip.DeletionTimestamp.IsZero() {
		// Not being deleted yet: deleted first. NotFound is an IPAddress
		// gone already, released by another process (whose address lock
		// of the address may be a new claim's by now): nothing is left to
		// do, and conflict.Requeue ends the reconcile.
		if err := r.client.Delete(ctx, ip, client.Preconditions{UID: &ip.UID}); err != nil {
			return conflict.Requeue(err)
		}
	}
	if err := r.locks.deleteHeld(ctx, ip); err != nil {
		return reconcile.Result{}, err
	}
	return conflict.Requeue(r.removeAddressFinalizer(ctx, ip))
}

// removeAddressFinalizer removes AddressFinalizer from ip with a JSON
// patch that tests the entry it removes: no resourceVersion is needed (the
// delete just before moved it), and no other finalizer is lost.
func (r *releaser) removeAddressFinalizer(ctx context.Context, ip *ipamv1.IPAddress) error {
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
func (r *releaser) graceLeft(ctx context.Context, key poolKey, since time.Time) time.Duration {
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
