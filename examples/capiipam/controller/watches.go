package controller

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/kube"
)

// addressEvents keeps the in-memory pools in step with the informer's
// IPAddresses of one pool kind, and requeues the pool after countsDelay
// (for its counts, and to let a deleted pool go).
type addressEvents struct {
	kind  string
	cache *poolCache
}

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

func (h addressEvents) Create(_ context.Context, e event.CreateEvent, q queue) {
	h.seen(e.Object, true, q)
}

func (h addressEvents) Delete(_ context.Context, e event.DeleteEvent, q queue) {
	h.seen(e.Object, false, q)
}

func (h addressEvents) Generic(context.Context, event.GenericEvent, queue) {}

func (h addressEvents) Update(_ context.Context, e event.UpdateEvent, q queue) {
	o, ok1 := e.ObjectOld.(*ipamv1.IPAddress)
	n, ok2 := e.ObjectNew.(*ipamv1.IPAddress)
	if ok1 && ok2 && (o.Spec.Address != n.Spec.Address || o.Spec.PoolRef != n.Spec.PoolRef) {
		h.seen(o, false, q)
	}
	h.seen(e.ObjectNew, true, q)
}

// seen records that obj exists (or is gone) in its pool's entry.
func (h addressEvents) seen(obj client.Object, exists bool, q queue) {
	ip, ok := obj.(*ipamv1.IPAddress)
	if !ok {
		return
	}
	key := poolOf(ip)
	if key.Kind != h.kind {
		return
	}
	if a, err := ipam.ParseAddr(ip.Spec.Address); err == nil {
		if e, _ := h.cache.Get(key); e != nil {
			e.seen(ip.Namespace+"/"+ip.Name, a, exists)
		}
	}
	q.AddAfter(reconcile.Request{NamespacedName: key.name()}, countsDelay)
}

// countsDelay is how long an IPAddress event waits before it requeues its
// pool. Events of one pool within it become one reconcile (the queue keeps
// one entry per pool, at its earliest time), so a burst of claims costs
// each pool one read and one status write per countsDelay instead of
// nearly one per claim; the counts, and the release of a deleted pool's
// finalizer, lag by as much. Allocation does not wait on it: the claim
// reconciler updates the in-memory pool itself.
const countsDelay = time.Second

// claimsOfPool maps a pool of kind to the claims that name it. It reads
// the cached claims without copying them (UnsafeDisableDeepCopy: it only
// reads), as the other maps here do: a pool's change would otherwise copy
// every claim of the pool.
func claimsOfPool(c client.Client, kind string) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		var list ipamv1.IPAddressClaimList
		if err := c.List(ctx, &list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{claimPoolIndex: indexValue(kind, obj.GetName())}, client.UnsafeDisableDeepCopy); err != nil {
			return nil
		}
		reqs := make([]reconcile.Request, 0, len(list.Items))
		for _, item := range list.Items {
			if !bound(&item) {
				reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: item.Namespace, Name: item.Name}})
			}
		}
		return reqs
	}
}

// bound reports whether claim is bound and not being deleted: nothing a
// pool's change or a start asks of it (a bound claim keeps its address
// whatever the pool's state), so neither queues it, and a new claim is
// not served behind thousands of reconciles that would only confirm bound
// ones (BenchmarkStartupBound). Its own changes still queue it.
func bound(claim *ipamv1.IPAddressClaim) bool {
	return claim.Status.AddressRef.Name != "" && claim.DeletionTimestamp.IsZero()
}

// notBoundAtStart drops the claims a start lists that are bound (see
// bound).
var notBoundAtStart = predicate.Funcs{CreateFunc: func(e event.CreateEvent) bool {
	c, ok := e.Object.(*ipamv1.IPAddressClaim)
	return !ok || !e.IsInInitialList || !bound(c)
}}

// claimsOfCluster maps a Cluster to the claims that name it.
func claimsOfCluster(c client.Client) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		var list ipamv1.IPAddressClaimList
		if err := c.List(ctx, &list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{claimClusterIdx: obj.GetName()}, client.UnsafeDisableDeepCopy); err != nil {
			return nil
		}
		reqs := make([]reconcile.Request, 0, len(list.Items))
		for _, item := range list.Items {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: item.Namespace, Name: item.Name}})
		}
		return reqs
	}
}

// poolServingChanged passes the pool updates after which waiting claims
// may proceed: CacheReady or its epoch, the generation, or the paused
// annotation changed. Count updates (every claim's) pass nothing, or each
// one would wake every claim of the pool.
type poolServingChanged struct{ predicate.Funcs }

func (poolServingChanged) Update(e event.UpdateEvent) bool {
	o, ok1 := e.ObjectOld.(v1alpha1.Pool)
	n, ok2 := e.ObjectNew.(v1alpha1.Pool)
	if !ok1 || !ok2 {
		return true
	}
	if o.GetGeneration() != n.GetGeneration() || hasKey(o.GetAnnotations(), PausedAnnotation) != hasKey(n.GetAnnotations(), PausedAnnotation) ||
		o.PoolStatus().CacheEpoch != n.PoolStatus().CacheEpoch || !o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp()) {
		return true
	}
	oc, oOK := kube.FindMeta(o.PoolStatus().Conditions, cacheready.Type)
	nc, nOK := kube.FindMeta(n.PoolStatus().Conditions, cacheready.Type)
	// Absent on both sides, the two zero Conditions compare equal.
	return oOK != nOK || oc.Status != nc.Status || oc.Reason != nc.Reason || oc.ObservedGeneration != nc.ObservedGeneration
}

// pausedChanged passes the Cluster events after which its claims may
// proceed: creation, deletion, and an update that changes whether it is
// paused.
type pausedChanged struct{ predicate.Funcs }

func (pausedChanged) Update(e event.UpdateEvent) bool {
	o, ok1 := e.ObjectOld.(*clusterv1.Cluster)
	n, ok2 := e.ObjectNew.(*clusterv1.Cluster)
	return !ok1 || !ok2 || clusterPaused(o) != clusterPaused(n)
}
