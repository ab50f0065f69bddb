package controller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/netip"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// PoolLabel holds, on a VMNetIPAddressLock, a hash of the pool it locks an
// address of (poolHash), so that a deleted pool's locks go in one call.
const PoolLabel = "ipam.vmnetkit.dev/pool"

// poolHash returns 16 hex digits of a hash of key: short, a valid label
// value and name part whatever the pool's name.
func poolHash(key poolKey) string {
	sum := sha256.Sum256([]byte(key.Kind + "/" + key.Namespace + "/" + key.Name))
	return hex.EncodeToString(sum[:8])
}

// lockName returns the name of the lock of addr in the pool key: the
// address in label form, a dot, the pool's hash. Two pools whose hashes
// collide share lock names: a lock of the other pool then reads as taken,
// never as free.
func lockName(key poolKey, addr netip.Addr) string {
	return addressLabel(addr) + "." + poolHash(key)
}

// newLock returns the lock of addr in the pool key for the IPAddress
// holder.
func newLock(key poolKey, addr netip.Addr, holder types.NamespacedName) *v1alpha1.VMNetIPAddressLock {
	return &v1alpha1.VMNetIPAddressLock{
		ObjectMeta: metav1.ObjectMeta{Name: lockName(key, addr), Labels: map[string]string{PoolLabel: poolHash(key)}},
		Spec: v1alpha1.AddressLockSpec{
			PoolKind: key.Kind, PoolNamespace: key.Namespace, PoolName: key.Name,
			Address:         addr.String(),
			HolderNamespace: holder.Namespace, HolderName: holder.Name,
		},
	}
}

// lockKey returns the pool a lock names.
func lockKey(l *v1alpha1.VMNetIPAddressLock) poolKey {
	return poolKey{Kind: l.Spec.PoolKind, Namespace: l.Spec.PoolNamespace, Name: l.Spec.PoolName}
}

// lock creates the lock of addr in the pool key for the IPAddress holder
// and returns it; or, when another IPAddress holds it, nil and that
// holder's namespace/name, for the caller to mark the address taken once
// it has let go of it itself (markLocked). A lock found created for holder
// before (a retry, another process serving the same claim) is holder's. A
// lock whose holder holds another address, or none in that pool (a
// process stopped between its lock and its IPAddress), is deleted: nil
// and no holder, and the claim picks again.
func (r *claimReconciler) lock(ctx context.Context, key poolKey, addr netip.Addr, holder types.NamespacedName) (l *v1alpha1.VMNetIPAddressLock, heldBy string, err error) {
	l = newLock(key, addr, holder)
	err = r.client.Create(ctx, l)
	if err == nil {
		return l, "", nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, "", err
	}
	existing := &v1alpha1.VMNetIPAddressLock{}
	if err := r.reader.Get(ctx, client.ObjectKeyFromObject(l), existing); err != nil {
		return nil, "", client.IgnoreNotFound(err) // deleted meanwhile: pick again
	}
	if existing.Spec.HolderNamespace == holder.Namespace && existing.Spec.HolderName == holder.Name && lockKey(existing) == key {
		return existing, "", nil
	}
	stale, err := r.staleLock(ctx, existing)
	if err != nil {
		return nil, "", err
	}
	if stale {
		return nil, "", r.unlock(ctx, existing)
	}
	return nil, existing.Spec.HolderNamespace + "/" + existing.Spec.HolderName, nil
}

// staleLock reports whether l's holder, read from the API server, exists
// and holds another address or pool. Its creator can then never create
// the holder's IPAddress under l (the name is taken), so l protects
// nothing. A holder that does not exist may be a create in flight: its
// lock stays.
func (r *claimReconciler) staleLock(ctx context.Context, l *v1alpha1.VMNetIPAddressLock) (bool, error) {
	ip := &ipamv1.IPAddress{}
	err := r.reader.Get(ctx, types.NamespacedName{Namespace: l.Spec.HolderNamespace, Name: l.Spec.HolderName}, ip)
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	}
	if poolOf(ip) != lockKey(l) {
		return true, nil
	}
	a, errA := ipam.ParseAddr(ip.Spec.Address)
	b, errB := ipam.ParseAddr(l.Spec.Address)
	return errA != nil || errB != nil || a != b, nil
}

// unlock deletes l, unless it was deleted or created again since it was
// read (the precondition on its UID).
func (r *claimReconciler) unlock(ctx context.Context, l *v1alpha1.VMNetIPAddressLock) error {
	err := r.client.Delete(ctx, l, client.Preconditions{UID: &l.UID})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// unlockHeld deletes the lock of ip's address in its pool if ip holds it.
func (r *claimReconciler) unlockHeld(ctx context.Context, ip *ipamv1.IPAddress) error {
	addr, err := ipam.ParseAddr(ip.Spec.Address)
	if err != nil {
		return nil // no lock was ever taken for it
	}
	l := &v1alpha1.VMNetIPAddressLock{}
	switch err := r.reader.Get(ctx, types.NamespacedName{Name: lockName(poolOf(ip), addr)}, l); {
	case apierrors.IsNotFound(err):
		return nil // an IPAddress created before the locks, or unlocked already
	case err != nil:
		return err
	}
	if l.Spec.HolderNamespace != ip.Namespace || l.Spec.HolderName != ip.Name || lockKey(l) != poolOf(ip) {
		return nil
	}
	if ip.DeletionTimestamp != nil && l.CreationTimestamp.After(ip.DeletionTimestamp.Time) {
		// Taken after ip was deleted: a new claim's of ip's name, ip
		// released meanwhile by another process.
		return nil
	}
	return r.unlock(ctx, l)
}
