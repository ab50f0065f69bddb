package controller

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// create picks an address for claim from e's pool, takes its lock and
// creates the claim's IPAddress, committed (with AddressFinalizer) from
// the start: the lock, whose name the API server refuses to create twice,
// is what makes the address the claim's. When the IPAddress already exists
// (another process, or this one before a restart, created it) it returns
// that one, and gives up the lock just taken if that one holds another
// address. A nil IPAddress with no failure and no error means the address
// was taken by another: pick again. A failure is what to tell the claim.
//
// It takes e's lock twice, never across an API call: reserve picks the
// address, and settle records in one step what the create left, whatever
// the path.
func (r *claimReconciler) create(ctx context.Context, claim *ipamv1.IPAddressClaim, key poolKey, pool v1alpha1.Pool, e *poolEntry) (*ipamv1.IPAddress, *failure, error) {
	owner := claim.Namespace + "/" + claim.Name
	addr, prefix, f := e.reserve(key, owner, r.now())
	if f != nil {
		return nil, f, nil
	}
	l, t, err := r.lock(ctx, key, addr, client.ObjectKeyFromObject(claim))
	if l == nil {
		e.settle(owner, addr, false, netip.Addr{})
		if t != nil {
			// Marked once settle has freed it: a mark on the address
			// still reserved for owner would not take.
			e.markLocked(addr, t.holder())
			r.warnOrphan(pool, t)
		}
		return nil, nil, err
	}
	ip, created, err := r.createAddress(ctx, claim, key, pool, addr, prefix)
	var holds netip.Addr // what owner's IPAddress holds in the pool; none on error
	switch {
	case err != nil:
	case created:
		holds = addr
	default: // adopted: counted only if it is of this pool
		if a, err := ipam.ParseAddr(ip.Spec.Address); err == nil && poolOf(ip) == key {
			holds = a
		}
	}
	e.settle(owner, addr, created, holds)
	if err != nil {
		return nil, nil, err
	}
	if holds != addr {
		// The claim's IPAddress holds another address (or none of this
		// pool): the lock just taken protects nothing.
		if err := r.unlock(ctx, l); err != nil {
			return nil, nil, err
		}
	}
	return ip, nil, nil
}

// reserve allocates an address for owner from e's pool and records it as
// pending until settle; it returns the address and the pool's prefix
// length, or the failure to tell the claim (nothing then is reserved). A
// pool found exhausted is resynced first if one is due (resyncDue), so
// that the marks of locks found (markLocked) do not outlive their locks
// when nothing else changes the pool: a lock still there is found again.
func (e *poolEntry) reserve(key poolKey, owner string, now time.Time) (netip.Addr, int, *failure) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ready() {
		reason := "not built"
		if c, ok := e.machine.Condition(); ok {
			reason = c.Reason + ": " + c.Message
		}
		return netip.Addr{}, 0, &failure{ReasonPoolNotReady, fmt.Sprintf("%s: cache not ready in this process (%s)", key, reason)}
	}
	addr, err := e.pool.Allocate(owner)
	if errors.Is(err, ipam.ErrExhausted) && e.resyncDue(now) {
		addr, err = e.pool.Allocate(owner)
	}
	switch {
	case errors.Is(err, ipam.ErrExhausted):
		return netip.Addr{}, 0, &failure{ReasonPoolExhausted, fmt.Sprintf("%s: no free address", key)}
	case err != nil:
		return netip.Addr{}, 0, &failure{ReasonAllocationFailed, err.Error()}
	}
	e.pending[owner] = addr
	return addr, e.spec.Prefix.Bits(), nil
}

// settle ends the create of owner's IPAddress for addr, which reserve
// returned, under one lock: addr is no longer pending; unless an
// IPAddress of addr was created, addr is freed; and the pool records that
// owner's IPAddress holds holds (addr when created, the address of the
// IPAddress found in its place, or the zero Addr for none).
func (e *poolEntry) settle(owner string, addr netip.Addr, created bool, holds netip.Addr) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending[owner] == addr {
		delete(e.pending, owner)
	}
	e.dirty = true
	if !created {
		e.release(owner, addr)
	}
	switch a, ok := e.objects[owner]; {
	case holds.IsValid():
		e.added(owner, holds)
	case ok:
		// The informer showed owner's IPAddress (another process's) while
		// addr was pending: the pool could not hold it for owner then.
		e.hold(owner, a)
	}
}

// createAddress creates claim's IPAddress of addr in the pool key,
// committed (AddressFinalizer): its caller holds addr's lock. When
// one of that name exists already it returns that one, read from the API
// server, and created false.
func (r *claimReconciler) createAddress(ctx context.Context, claim *ipamv1.IPAddressClaim, key poolKey, pool v1alpha1.Pool, addr netip.Addr, prefix int) (ip *ipamv1.IPAddress, created bool, err error) {
	ip = &ipamv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name: claim.Name, Namespace: claim.Namespace,
			Labels:     map[string]string{AddressLabel: addressLabel(addr)},
			Finalizers: []string{AddressFinalizer},
		},
		Spec: ipamv1.IPAddressSpec{
			ClaimRef: ipamv1.IPAddressClaimReference{Name: claim.Name},
			PoolRef:  ipamv1.IPPoolReference{APIGroup: v1alpha1.GroupVersion.Group, Kind: key.Kind, Name: key.Name},
			Address:  addr.String(),
			Prefix:   ptr.To(int32(prefix)),
			Gateway:  pool.PoolSpec().Gateway,
		},
	}
	if name := clusterName(claim); name != "" {
		// Read when the claim is gone: its Cluster's pause holds the release.
		ip.Labels[ClusterNameLabel] = name
	}
	if err := controllerutil.SetControllerReference(claim, ip, r.scheme); err != nil {
		return nil, false, err
	}
	if err := controllerutil.SetOwnerReference(pool, ip, r.scheme, controllerutil.WithBlockOwnerDeletion(true)); err != nil {
		return nil, false, err
	}
	err = r.client.Create(ctx, ip)
	switch {
	case apierrors.IsAlreadyExists(err):
		existing := &ipamv1.IPAddress{}
		if err := r.reader.Get(ctx, client.ObjectKeyFromObject(ip), existing); err != nil {
			return nil, false, err
		}
		return existing, false, nil
	case err != nil:
		return nil, false, err
	}
	return ip, true, nil
}

// commitLegacy commits ip, an IPAddress of the pool key without
// AddressFinalizer: one created before the locks existed, by a process
// that stopped between its create and its commit. It takes the lock of
// ip's address, then lists, from the API server, the IPAddresses of that
// address in the pool (those created before the locks hold none). If
// another holds the lock or exists, ip is deleted (unless it changed since
// it was read, which the delete's precondition catches) and the pool marks
// the address as the other's: committed is false and the claim picks
// again. Otherwise ip is committed with AddressFinalizer.
func (r *claimReconciler) commitLegacy(ctx context.Context, key poolKey, e *poolEntry, ip *ipamv1.IPAddress) (committed bool, err error) {
	if !ip.DeletionTimestamp.IsZero() {
		return false, nil // a loser being deleted: wait for it to go
	}
	addr, err := ipam.ParseAddr(ip.Spec.Address)
	if err != nil {
		return false, fmt.Errorf("IPAddress %s/%s: %w", ip.Namespace, ip.Name, err)
	}
	l, t, err := r.lock(ctx, key, addr, client.ObjectKeyFromObject(ip))
	if err != nil {
		return false, err
	}
	var others []string
	if l != nil {
		var list ipamv1.IPAddressList
		if err := r.reader.List(ctx, &list, client.InNamespace(ip.Namespace), client.MatchingLabels{AddressLabel: addressLabel(addr)}); err != nil {
			return false, err
		}
		for i := range list.Items {
			o := &list.Items[i]
			if o.UID != ip.UID && poolOf(o) == key && o.Spec.Address == ip.Spec.Address {
				others = append(others, o.Namespace+"/"+o.Name)
			}
		}
	}
	if l == nil || len(others) > 0 {
		err := r.client.Delete(ctx, ip, client.Preconditions{UID: &ip.UID, ResourceVersion: &ip.ResourceVersion})
		if err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		if l != nil {
			if err := r.unlock(ctx, l); err != nil {
				return false, err
			}
		}
		owner := ip.Namespace + "/" + ip.Name
		e.mu.Lock()
		e.removed(owner, addr)
		for _, o := range others {
			e.added(o, addr)
		}
		e.mu.Unlock()
		if t != nil {
			e.markLocked(addr, t.holder())
		}
		return false, nil
	}
	controllerutil.AddFinalizer(ip, AddressFinalizer)
	if err := r.client.Update(ctx, ip); err != nil {
		return false, err
	}
	return true, nil
}
