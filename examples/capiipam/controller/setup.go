package controller

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/manager"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/kube"
)

// Field indexes of the informer cache.
const (
	addressPoolIndex = "capiipam.spec.poolRef"     // IPAddresses by "Kind/name" of their pool
	claimPoolIndex   = "capiipam.spec.poolRef"     // IPAddressClaims by "Kind/name" of their pool
	claimClusterIdx  = "capiipam.spec.clusterName" // IPAddressClaims by Cluster name
)

// Options configure Setup. The zero value is usable.
type Options struct {
	// ControllerOptions are the epoch, clock, claim workers and retry
	// interval, as in the operator. Now is also the clock of the reuse
	// grace period; MaxConcurrentClaims counts IPAddressClaims.
	manager.ControllerOptions
	// Since is the monotonic clock of the lock-reclaim handshake (package
	// reclaim): how long since a fixed start. Nil: the process's own;
	// tests run it faster.
	Since func() time.Duration
}

// The permissions the reconcilers need (config/rbac/role.yaml is generated
// from these markers; leases are for -leader-elect; the finalizers
// subresources let an IPAddress block its claim's and pool's deletion
// where the OwnerReferencesPermissionEnforcement admission plugin runs;
// update on ipaddressclaims removes the ReleaseAddress finalizer that
// older versions and the in-cluster provider put on claims):
//
// +kubebuilder:rbac:groups=ipam.vmnetkit.dev,resources=vmnetippools;globalvmnetippools,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=ipam.vmnetkit.dev,resources=vmnetippools/status;globalvmnetippools/status,verbs=get;update
// +kubebuilder:rbac:groups=ipam.vmnetkit.dev,resources=vmnetippools/finalizers;globalvmnetippools/finalizers,verbs=update
// +kubebuilder:rbac:groups=ipam.vmnetkit.dev,resources=vmnetipaddresslocks,verbs=get;create;patch;delete;deletecollection
// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddressclaims,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddressclaims/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddressclaims/finalizers,verbs=update
// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddresses,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Setup registers the pool and claim reconcilers with mgr and returns the
// epoch they run with. mgr's scheme must know v1alpha1's types, Cluster
// API's ipam/v1beta2 and core/v1beta2 types.
func Setup(mgr ctrl.Manager, opts Options) (epoch string, err error) {
	opts.ControllerOptions = opts.ControllerOptions.WithDefaults()
	if opts.Since == nil {
		start := time.Now()
		opts.Since = func() time.Duration { return time.Since(start) }
	}
	cache := newPoolCache(opts.Epoch)
	if err := indexFields(mgr.GetFieldIndexer()); err != nil {
		return "", err
	}

	recorder := mgr.GetEventRecorderFor("vmnetkit-capiipam")
	for _, kind := range []string{v1alpha1.PoolKind, v1alpha1.GlobalPoolKind} {
		r := &poolReconciler{
			kind: kind, newObj: newPool(kind),
			client: mgr.GetClient(), reader: mgr.GetAPIReader(), cache: cache, recorder: recorder, now: opts.Now, since: opts.Since,
		}
		err = ctrl.NewControllerManagedBy(mgr).
			Named(kind).
			// The pool's own status writes do not move its generation: they
			// would only echo back. Spec changes, creation, deletion and
			// (un)pausing do.
			For(r.newObj(), builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
			Watches(&ipamv1.IPAddress{}, addressEvents{kind: kind, cache: cache}).
			WithOptions(opts.PoolController()).
			Complete(r)
		if err != nil {
			return "", fmt.Errorf("set up %s controller: %w", kind, err)
		}
	}

	locks := &addressLocks{client: mgr.GetClient(), reader: mgr.GetAPIReader(), recorder: recorder, now: opts.Now, since: opts.Since}
	release := &releaser{client: mgr.GetClient(), locks: locks, now: opts.Now}
	if err := setupClaims(mgr, opts, cache, locks, release); err != nil {
		return "", err
	}

	err = ctrl.NewControllerManagedBy(mgr).
		Named("ipaddress").
		Watches(&ipamv1.IPAddress{}, laterAtStart{}, builder.WithPredicates(releaseEvents{})).
		Watches(&ipamv1.IPAddressClaim{}, handler.EnqueueRequestsFromMapFunc(addressOfClaim), builder.WithPredicates(claimDeleted)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(addressesOfCluster(mgr.GetClient())), builder.WithPredicates(pausedChanged{})).
		WithOptions(opts.ClaimController()).
		Complete(&addressReconciler{client: mgr.GetClient(), reader: mgr.GetAPIReader(), release: release})
	if err != nil {
		return "", fmt.Errorf("set up IPAddress controller: %w", err)
	}
	return opts.Epoch, nil
}

// indexFields adds the field indexes the reconcilers list by: IPAddresses
// and claims by pool, claims by Cluster.
func indexFields(indexer client.FieldIndexer) error {
	ctx := context.Background()
	if err := indexer.IndexField(ctx, &ipamv1.IPAddress{}, addressPoolIndex, func(o client.Object) []string {
		if k := poolOf(o.(*ipamv1.IPAddress)); k.Kind != "" {
			return []string{indexValue(k.Kind, k.Name)}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("index IPAddresses by pool: %w", err)
	}
	if err := indexer.IndexField(ctx, &ipamv1.IPAddressClaim{}, claimPoolIndex, func(o client.Object) []string {
		ref := o.(*ipamv1.IPAddressClaim).Spec.PoolRef
		if ref.APIGroup != v1alpha1.GroupVersion.Group {
			return nil
		}
		return []string{indexValue(ref.Kind, ref.Name)}
	}); err != nil {
		return fmt.Errorf("index IPAddressClaims by pool: %w", err)
	}
	if err := indexer.IndexField(ctx, &ipamv1.IPAddressClaim{}, claimClusterIdx, func(o client.Object) []string {
		if name := clusterName(o.(*ipamv1.IPAddressClaim)); name != "" {
			return []string{name}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("index IPAddressClaims by Cluster: %w", err)
	}
	return nil
}

// setupClaims sets up the IPAddressClaim controller: claims of this
// provider's pools, requeued when their Cluster's pause or their pool's
// serving state changes.
func setupClaims(mgr ctrl.Manager, opts Options, cache *poolCache, locks *addressLocks, release *releaser) error {
	claims := &claimReconciler{
		client: mgr.GetClient(), reader: mgr.GetAPIReader(), scheme: mgr.GetScheme(),
		cache: cache, locks: locks, release: release, now: opts.Now, waiting: opts.RetryWaiting,
	}
	ours := predicate.NewPredicateFuncs(func(o client.Object) bool {
		c, ok := o.(*ipamv1.IPAddressClaim)
		return ok && c.Spec.PoolRef.APIGroup == v1alpha1.GroupVersion.Group
	})
	b := ctrl.NewControllerManagedBy(mgr).
		Named("ipaddressclaim").
		For(&ipamv1.IPAddressClaim{}, builder.WithPredicates(ours, notBoundAtStart, predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(claimsOfCluster(mgr.GetClient())),
			builder.WithPredicates(pausedChanged{}))
	for _, kind := range []string{v1alpha1.PoolKind, v1alpha1.GlobalPoolKind} {
		b = b.Watches(newPool(kind)(), handler.EnqueueRequestsFromMapFunc(claimsOfPool(mgr.GetClient(), kind)),
			builder.WithPredicates(poolServingChanged{}))
	}
	if err := b.WithOptions(opts.ClaimController()).Complete(claims); err != nil {
		return fmt.Errorf("set up IPAddressClaim controller: %w", err)
	}
	return nil
}

// newPool returns the constructor of kind's objects.
func newPool(kind string) func() v1alpha1.Pool {
	if kind == v1alpha1.GlobalPoolKind {
		return func() v1alpha1.Pool { return &v1alpha1.GlobalVMNetIPPool{} }
	}
	return func() v1alpha1.Pool { return &v1alpha1.VMNetIPPool{} }
}

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
