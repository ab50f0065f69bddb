package controller

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// claimRequest is what one reconcile of a claim that needs an address
// works with: the claim, the pool it names (its key and the object as
// read) and this process's entry of that pool.
type claimRequest struct {
	claim   *ipamv1.IPAddressClaim
	key     poolKey
	poolObj v1alpha1.Pool
	entry   *poolEntry
}

// owner is the claim's IPAddress's namespace/name: its owner in the
// in-memory pool.
func (q *claimRequest) owner() string { return q.claim.Namespace + "/" + q.claim.Name }

// create picks an address for q's claim from the entry's pool, takes its
// address lock and creates the claim's IPAddress, committed (with
// AddressFinalizer) from the start: the address lock, whose name the API
// server refuses to create twice, is what makes the address the claim's.
// When the IPAddress already exists (another process, or this one before
// a restart, created it) it returns that one, and gives up the address
// lock just taken if that one holds another address. errPickAgain means
// the address was taken by another: pick again. A failure is what to tell
// the claim; a claim that asks for an address (pre-allocated, or its
// annotation's) gets that one or a failure, never errPickAgain for an
// address another's lock holds.
//
// It takes the entry's mu twice, never across an API call: reserve picks
// the address, and settle records in one step what the create left,
// whatever the path.
func (r *claimReconciler) create(ctx context.Context, q *claimRequest) (*ipamv1.IPAddress, *failure, error) {
	e, owner := q.entry, q.owner()
	asked, f := askedAddress(q.claim)
	if f != nil {
		return nil, f, nil
	}
	res, f := e.reserve(q.key, owner, asked, r.now())
	if f != nil {
		return nil, f, nil
	}
	addr, prefix := res.addr, res.prefix
	start := r.locks.since()
	l, foreign, err := r.locks.take(ctx, q.key, addr, client.ObjectKeyFromObject(q.claim))
	if l == nil {
		e.settle(owner, addr, false, netip.Addr{})
		if foreign != nil {
			f, err := r.lockedByAnother(ctx, q, res, foreign)
			return nil, f, err
		}
		return nil, nil, err
	}
	ip, created, err := r.createAddress(ctx, q, addr, prefix)
	if err == nil && created {
		// A slow create may have outlived its lock (package reclaim).
		switch held, cerr := r.locks.confirm(ctx, l, r.locks.since()-start); {
		case cerr != nil:
			err = cerr // the IPAddress stays; the retry rechecks it (ensureAddress)
		case !held:
			e.settle(owner, addr, false, netip.Addr{})
			if err := r.locks.dropLost(ctx, ip); err != nil {
				return nil, nil, err
			}
			return nil, nil, errPickAgain
		}
	}
	var holds netip.Addr // what owner's IPAddress holds in the pool; none on error
	switch {
	case err != nil:
	case created:
		holds = addr
	default: // adopted: counted only if it is of this pool
		if a, err := ipam.ParseAddr(ip.Spec.Address); err == nil && poolOf(ip) == q.key {
			holds = a
		}
	}
	e.settle(owner, addr, created, holds)
	if err != nil {
		return nil, nil, err
	}
	if holds != addr {
		// The claim's IPAddress holds another address (or none of this
		// pool): the address lock just taken protects nothing.
		if err := r.locks.delete(ctx, l); err != nil {
			return nil, nil, err
		}
	}
	return ip, nil, nil
}

// lockedByAnother answers create's finding that foreign, another's lock,
// holds the address res reserved (and settle freed): errPickAgain when
// the lock, left without its IPAddress, was reclaimed just now (package
// reclaim); otherwise the address is marked taken (markForeignLock) and
// the claim picks again, or, when it asked for that address, fails.
func (r *claimReconciler) lockedByAnother(ctx context.Context, q *claimRequest, res reservation, foreign *foreignLock) (*failure, error) {
	switch gone, err := r.locks.reclaimOrphan(ctx, q.poolObj, foreign); {
	case err != nil:
		return nil, err
	case gone:
		return nil, errPickAgain // free again: the next pick may take it
	}
	q.entry.markForeignLock(res.addr, foreign.holder())
	r.locks.warnOrphan(q.poolObj, foreign)
	if res.source != "" {
		held := foreignLockOwner(foreign.holder(), res.addr)
		return &failure{ReasonAddressInUse, inUseMessage(q.key, res.addr, res.source, held)}, nil
	}
	return nil, errPickAgain
}

// createAddress creates q's claim's IPAddress of addr in q's pool,
// committed (AddressFinalizer): its caller holds addr's address lock.
// When one of that name exists already it returns that one, read from the
// API server, and created false.
func (r *claimReconciler) createAddress(ctx context.Context, q *claimRequest, addr netip.Addr, prefix int) (ip *ipamv1.IPAddress, created bool, err error) {
	claim, key := q.claim, q.key
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
			Gateway:  q.poolObj.PoolSpec().Gateway,
		},
	}
	if name := clusterName(claim); name != "" {
		// Read when the claim is gone: its Cluster's pause holds the release.
		ip.Labels[ClusterNameLabel] = name
	}
	if err := controllerutil.SetControllerReference(claim, ip, r.scheme); err != nil {
		return nil, false, err
	}
	if err := controllerutil.SetOwnerReference(q.poolObj, ip, r.scheme, controllerutil.WithBlockOwnerDeletion(true)); err != nil {
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

// commitLegacy commits ip, an IPAddress of q's pool without
// AddressFinalizer: one created before the address locks existed, by a
// process that stopped between its create and its commit. It takes the
// address lock of ip's address, then lists, from the API server, the
// IPAddresses of that address in the pool (those created before the locks
// hold none). If another holds the lock or exists, ip is deleted (unless
// it changed since it was read, which the delete's precondition catches)
// and the pool marks the address as the other's: committed is false and
// the claim picks again. Otherwise ip is committed with AddressFinalizer.
func (r *claimReconciler) commitLegacy(ctx context.Context, q *claimRequest, ip *ipamv1.IPAddress) (committed bool, err error) {
	key, e := q.key, q.entry
	if !ip.DeletionTimestamp.IsZero() {
		return false, nil // a loser being deleted: wait for it to go
	}
	addr, err := ipam.ParseAddr(ip.Spec.Address)
	if err != nil {
		return false, fmt.Errorf("IPAddress %s/%s: %w", ip.Namespace, ip.Name, err)
	}
	l, foreign, err := r.locks.take(ctx, key, addr, client.ObjectKeyFromObject(ip))
	if err != nil && !errors.Is(err, errPickAgain) {
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
			if err := r.locks.delete(ctx, l); err != nil {
				return false, err
			}
		}
		e.lostTo(ip.Namespace+"/"+ip.Name, addr, others)
		if foreign != nil {
			e.markForeignLock(addr, foreign.holder())
		}
		return false, nil
	}
	controllerutil.AddFinalizer(ip, AddressFinalizer)
	if err := r.client.Update(ctx, ip); err != nil {
		return false, err
	}
	return true, nil
}
