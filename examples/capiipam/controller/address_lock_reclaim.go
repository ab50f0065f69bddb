package controller

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/reclaim"
)

// ReasonLockReclaimed is the reason of the Normal Event on a pool whose
// address lock, left without its IPAddress, was reclaimed (see package
// reclaim).
const ReasonLockReclaimed = "LockReclaimed"

// ReclaimAnnotation marks an address lock a process is about to reclaim;
// its value names the mark's time. Any write to the lock after it (its
// creator clearing it) stops the reclaim.
const ReclaimAnnotation = "ipam.vmnetkit.dev/reclaim"

// This file wires package reclaim's handshake to the address locks: a lock
// without its IPAddress is reclaimed once this process has seen it so for
// reclaim.OrphanAge by its own monotonic clock (addressLocks.since), and a
// create slower than reclaim.SlowCreate, or an IPAddress found for a claim
// not bound yet, confirms its lock before the claim is bound.

// lockStore is reclaim's Store over the API server: reads uncached,
// writes conditional on the lock's resourceVersion.
type lockStore struct{ r *addressLocks }

func lockOf(l *v1alpha1.VMNetIPAddressLock) reclaim.Lock {
	_, marked := l.Annotations[ReclaimAnnotation]
	return reclaim.Lock{Name: l.Name, UID: string(l.UID), Version: l.ResourceVersion,
		Holder: l.Spec.HolderNamespace + "/" + l.Spec.HolderName, Marked: marked}
}

func storeErr(err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%w: %v", reclaim.ErrNotFound, err)
	case apierrors.IsConflict(err):
		return fmt.Errorf("%w: %v", reclaim.ErrConflict, err)
	}
	return err
}

func (s lockStore) GetLock(ctx context.Context, name string) (reclaim.Lock, error) {
	l := &v1alpha1.VMNetIPAddressLock{}
	if err := s.r.reader.Get(ctx, types.NamespacedName{Name: name}, l); err != nil {
		return reclaim.Lock{}, storeErr(err)
	}
	return lockOf(l), nil
}

func (s lockStore) SetMark(ctx context.Context, l reclaim.Lock, marked bool) (reclaim.Lock, error) {
	value := "null"
	if marked {
		value = fmt.Sprintf("%q", time.Now().UTC().Format(time.RFC3339))
	}
	// The resourceVersion in a merge patch is a precondition: the API
	// server refuses it (Conflict) once the lock was written or made again.
	patch := fmt.Sprintf(`{"metadata":{"resourceVersion":%q,"annotations":{%q:%s}}}`, l.Version, ReclaimAnnotation, value)
	obj := &v1alpha1.VMNetIPAddressLock{}
	obj.Name = l.Name
	if err := s.r.client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return reclaim.Lock{}, storeErr(err)
	}
	return lockOf(obj), nil
}

func (s lockStore) DeleteLock(ctx context.Context, l reclaim.Lock) error {
	obj := &v1alpha1.VMNetIPAddressLock{}
	obj.Name = l.Name
	uid := types.UID(l.UID)
	return storeErr(s.r.client.Delete(ctx, obj, client.Preconditions{UID: &uid, ResourceVersion: &l.Version}))
}

func (s lockStore) HolderExists(ctx context.Context, l reclaim.Lock) (bool, error) {
	ns, name, _ := cutHolder(l.Holder)
	err := s.r.reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &ipamv1.IPAddress{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func cutHolder(h string) (namespace, name string, ok bool) {
	for i := 0; i < len(h); i++ {
		if h[i] == '/' {
			return h[:i], h[i+1:], true
		}
	}
	return "", h, false
}

// reclaimOrphan hands t to the reclaimer when its holder was missing, and
// reports whether t's lock is gone now; an Event on pool names it.
func (r *addressLocks) reclaimOrphan(ctx context.Context, pool v1alpha1.Pool, t *foreignLock) (bool, error) {
	if !t.holderMissing {
		return false, nil
	}
	gone, err := r.reclaimer.Consider(ctx, lockStore{r}, lockOf(t.lock), r.since())
	if gone {
		r.recorder.Eventf(pool, corev1.EventTypeNormal, ReasonLockReclaimed,
			"address %s was locked for IPAddress %s, which did not exist for %v: VMNetIPAddressLock %s reclaimed",
			t.lock.Spec.Address, t.holder(), reclaim.OrphanAge, t.lock.Name)
	}
	return gone, err
}

// confirm is reclaim.Confirm of l, created elapsed ago, for the IPAddress
// just created under it.
func (r *addressLocks) confirm(ctx context.Context, l *v1alpha1.VMNetIPAddressLock, elapsed time.Duration) (bool, error) {
	return reclaim.Confirm(ctx, lockStore{r}, lockOf(l), elapsed)
}

// recheck reports whether ip, a committed IPAddress found for a claim not
// bound to it yet (a process stopped before it bound the claim), still
// holds the lock of its address addr in key: reclaim.Recheck of that
// lock; a lock found gone is taken again for ip, and lost when another
// holds it.
func (r *addressLocks) recheck(ctx context.Context, key poolKey, addr netip.Addr, ip *ipamv1.IPAddress) (bool, error) {
	holder := client.ObjectKeyFromObject(ip)
	cur, err := lockStore{r}.GetLock(ctx, addressLockName(key, addr))
	switch {
	case errors.Is(err, reclaim.ErrNotFound):
		l, _, err := r.take(ctx, key, addr, holder)
		if errors.Is(err, errPickAgain) {
			return false, nil
		}
		return l != nil, err
	case err != nil:
		return false, err
	case cur.Holder != holder.String():
		return false, nil
	}
	return reclaim.Recheck(ctx, lockStore{r}, cur)
}

// dropLost deletes ip, a claim's IPAddress of an address whose lock is
// not its own: this provider's finalizer first (conditional on ip's
// resourceVersion), then the object (on its UID).
func (r *addressLocks) dropLost(ctx context.Context, ip *ipamv1.IPAddress) error {
	if controllerutil.ContainsFinalizer(ip, AddressFinalizer) {
		upd := ip.DeepCopy()
		controllerutil.RemoveFinalizer(upd, AddressFinalizer)
		if err := r.client.Update(ctx, upd); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	err := r.client.Delete(ctx, ip, client.Preconditions{UID: &ip.UID})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}
