package controller

import (
	"context"
	"fmt"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/manager"
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
