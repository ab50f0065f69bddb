package controller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/reclaim"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// ReasonLockWithoutHolder is the reason of the Warning Event on a pool
// whose address is locked for an IPAddress that has not existed for
// orphanAge (warnOrphan).
const ReasonLockWithoutHolder = "LockWithoutHolder"

// PoolLabel holds, on a VMNetIPAddressLock, a hash of the pool it locks an
// address of (poolHash), so that a deleted pool's locks go in one call.
const PoolLabel = "ipam.vmnetkit.dev/pool"

// This file is the address lock: the VMNetIPAddressLock whose name the API
// server creates once, which makes an address an IPAddress's. It is no
// mutex: a poolEntry's mu is pool_entry.go's. Why it exists:
//
// The IPAddress objects are the source of truth; there is no other record
// of an allocation. The in-memory pool is a cache of them that picks the
// candidate address. Because two processes (a split brain, or an old
// leader not yet stopped) may each pick an address the other just took,
// and an informer cache may not show it yet, the API server decides: an
// allocation first creates a VMNetIPAddressLock whose name is derived from
// the pool and the address, which the API server creates once and refuses
// after (AlreadyExists). Only the process that created it (or one serving
// the same claim, which the lock names) creates the claim's IPAddress,
// committed from the start with the ipam.cluster.x-k8s.io/ProtectAddress
// finalizer, and then writes the claim's status.addressRef. The lock is
// deleted only while its IPAddress is being deleted (before
// AddressFinalizer goes: an IPAddress being deleted whose lock is gone
// holds nothing), or when its holder is found to hold another address
// (then it protects nothing). IPAddresses
// created before the locks are counted from the informer cache; one of
// them not yet committed is committed the old way (lock, list its
// address's IPAddresses from the API server, keep it only if alone).

// poolHash returns 16 hex digits of a hash of key: short, a valid label
// value and name part whatever the pool's name.
func poolHash(key poolKey) string {
	sum := sha256.Sum256([]byte(key.Kind + "/" + key.Namespace + "/" + key.Name))
	return hex.EncodeToString(sum[:8])
}

// addressLockName returns the name of the address lock of addr in the
// pool key: the address in label form, a dot, the pool's hash. Two pools whose hashes
// collide share lock names: a lock of the other pool then reads as taken,
// never as free.
func addressLockName(key poolKey, addr netip.Addr) string {
	return addressLabel(addr) + "." + poolHash(key)
}

// newAddressLock returns the address lock of addr in the pool key for the
// IPAddress holder.
func newAddressLock(key poolKey, addr netip.Addr, holder types.NamespacedName) *v1alpha1.VMNetIPAddressLock {
	return &v1alpha1.VMNetIPAddressLock{
		ObjectMeta: metav1.ObjectMeta{Name: addressLockName(key, addr), Labels: map[string]string{PoolLabel: poolHash(key)}},
		Spec: v1alpha1.AddressLockSpec{
			PoolKind: key.Kind, PoolNamespace: key.Namespace, PoolName: key.Name,
			Address:         addr.String(),
			HolderNamespace: holder.Namespace, HolderName: holder.Name,
		},
	}
}

// lockedPool returns the pool an address lock names.
func lockedPool(l *v1alpha1.VMNetIPAddressLock) poolKey {
	return poolKey{Kind: l.Spec.PoolKind, Namespace: l.Spec.PoolNamespace, Name: l.Spec.PoolName}
}

// addressLocks takes and deletes address locks; the claim reconciler
// takes them, and both it and the release delete them.
type addressLocks struct {
	client   client.Client // writes
	reader   client.Reader // uncached reads: a lock or holder just created
	recorder record.EventRecorder
	now      func() time.Time
	// since is this process's monotonic clock (the reclaim handshake's
	// ages and durations); reclaimer remembers the orphans it has seen.
	since     func() time.Duration
	reclaimer reclaim.Reclaimer
}

// errPickAgain is take's and the claim's create's answer when the address
// picked turned out taken (its lock held by another IPAddress, deleted
// meanwhile, or stale and deleted just now): the claim picks another
// address at once.
var errPickAgain = errors.New("address taken: pick again")

// foreignLock is an address lock that another IPAddress holds.
type foreignLock struct {
	lock *v1alpha1.VMNetIPAddressLock
	// holderMissing says the holder did not exist when read: a create in
	// flight, or a lock left by a process stopped between the lock and the
	// IPAddress whose claim is gone.
	holderMissing bool
}

// holder returns the namespace/name of the IPAddress t's lock is for.
func (t *foreignLock) holder() string {
	return t.lock.Spec.HolderNamespace + "/" + t.lock.Spec.HolderName
}

// take creates the address lock of addr in the pool key for the IPAddress
// holder and returns it; or, when another IPAddress holds it, nil and
// that lock, for the caller to mark the address taken once it has let go
// of it itself (poolEntry.markForeignLock). A lock found created for
// holder before (a retry, another process serving the same claim) is
// holder's. A lock deleted meanwhile, or whose holder holds another
// address or none in that pool (a process stopped between its lock and its
// IPAddress), which take then deletes, is errPickAgain.
func (r *addressLocks) take(ctx context.Context, key poolKey, addr netip.Addr, holder types.NamespacedName) (*v1alpha1.VMNetIPAddressLock, *foreignLock, error) {
	l := newAddressLock(key, addr, holder)
	err := r.client.Create(ctx, l)
	if err == nil {
		return l, nil, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, nil, err
	}
	existing := &v1alpha1.VMNetIPAddressLock{}
	if err := r.reader.Get(ctx, client.ObjectKeyFromObject(l), existing); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, errPickAgain // deleted meanwhile
		}
		return nil, nil, err
	}
	if existing.Spec.HolderNamespace == holder.Namespace && existing.Spec.HolderName == holder.Name && lockedPool(existing) == key {
		return existing, nil, nil
	}
	stale, missing, err := r.stale(ctx, existing)
	if err != nil {
		return nil, nil, err
	}
	if stale {
		if err := r.delete(ctx, existing); err != nil {
			return nil, nil, err
		}
		return nil, nil, errPickAgain
	}
	return nil, &foreignLock{lock: existing, holderMissing: missing}, nil
}

// stale reports whether l's holder, read from the API server, exists
// and holds another address or pool. Its creator can then never create
// the holder under l (the name is taken), so l protects nothing. A holder
// that does not exist may be a create in flight: l is not stale, and
// missing says so.
func (r *addressLocks) stale(ctx context.Context, l *v1alpha1.VMNetIPAddressLock) (stale, missing bool, err error) {
	ip := &ipamv1.IPAddress{}
	err = r.reader.Get(ctx, types.NamespacedName{Namespace: l.Spec.HolderNamespace, Name: l.Spec.HolderName}, ip)
	switch {
	case apierrors.IsNotFound(err):
		return false, true, nil
	case err != nil:
		return false, false, err
	}
	if poolOf(ip) != lockedPool(l) {
		return true, false, nil
	}
	a, errA := ipam.ParseAddr(ip.Spec.Address)
	b, errB := ipam.ParseAddr(l.Spec.Address)
	return errA != nil || errB != nil || a != b, false, nil
}

// orphanAge is how old a lock whose holder does not exist must be for a
// Warning: a create in flight takes milliseconds, so a lock a minute old
// without its IPAddress was most likely left by a stopped process.
const orphanAge = time.Minute

// warnOrphan records a Warning Event on pool when t's holder does not
// exist and its lock is orphanAge old (by this process's clock against
// the API server's creation time), so that whoever runs the pool can see
// why its address is not handed out until the lock is reclaimed
// (reclaimOrphan).
func (r *addressLocks) warnOrphan(pool v1alpha1.Pool, t *foreignLock) {
	age := r.now().Sub(t.lock.CreationTimestamp.Time)
	if !t.holderMissing || age < orphanAge {
		return
	}
	r.recorder.Eventf(pool, corev1.EventTypeWarning, ReasonLockWithoutHolder,
		"address %s is locked for IPAddress %s, which does not exist %v after the lock's creation; a process stopped between a lock and its IPAddress, whose claim is gone, leaves such a lock: VMNetIPAddressLock %s is reclaimed once this process has seen it so for %v",
		t.lock.Spec.Address, t.holder(), age.Round(time.Second), t.lock.Name, reclaim.OrphanAge)
}

// delete deletes l, unless it was deleted or created again since it was
// read (the precondition on its UID).
func (r *addressLocks) delete(ctx context.Context, l *v1alpha1.VMNetIPAddressLock) error {
	err := r.client.Delete(ctx, l, client.Preconditions{UID: &l.UID})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// deleteHeld deletes the address lock of ip's address in its pool if ip
// holds it.
func (r *addressLocks) deleteHeld(ctx context.Context, ip *ipamv1.IPAddress) error {
	addr, err := ipam.ParseAddr(ip.Spec.Address)
	if err != nil {
		return nil // no lock was ever taken for it
	}
	l := &v1alpha1.VMNetIPAddressLock{}
	switch err := r.reader.Get(ctx, types.NamespacedName{Name: addressLockName(poolOf(ip), addr)}, l); {
	case apierrors.IsNotFound(err):
		return nil // an IPAddress created before the locks, or unlocked already
	case err != nil:
		return err
	}
	if l.Spec.HolderNamespace != ip.Namespace || l.Spec.HolderName != ip.Name || lockedPool(l) != poolOf(ip) {
		return nil
	}
	if ip.DeletionTimestamp != nil && l.CreationTimestamp.After(ip.DeletionTimestamp.Time) {
		// Taken after ip was deleted: a new claim's of ip's name, ip
		// released meanwhile by another process.
		return nil
	}
	return r.delete(ctx, l)
}
