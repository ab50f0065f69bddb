package controller

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/internal/manager"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
)

// poolIndex is the field index of VMNetworkConfigs by the pools their NICs name.
const poolIndex = "spec.nics.pool"

// Options configure Setup. The zero value is usable.
type Options struct {
	// ControllerOptions are the epoch, clock, claim workers and retry
	// interval, as in capiipam. MaxConcurrentClaims counts
	// VMNetworkConfigs; allocations in one pool are serialized, and those
	// that arrive together share one status write.
	manager.ControllerOptions

	// MaxAllocations is the most addresses one IPPool hands out (an
	// IPPool's spec.maxAllocations may lower it). Zero: DefaultMaxAllocations.
	MaxAllocations int
}

// The permissions the reconcilers need (config/rbac/role.yaml is generated
// from these markers; leases are for -leader-elect):
//
// +kubebuilder:rbac:groups=network.vmnetkit.dev,resources=ippools,verbs=get;list;watch
// +kubebuilder:rbac:groups=network.vmnetkit.dev,resources=ippools/status,verbs=get;update
// +kubebuilder:rbac:groups=network.vmnetkit.dev,resources=vmnetworkconfigs,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=network.vmnetkit.dev,resources=vmnetworkconfigs/status,verbs=get;update
// +kubebuilder:rbac:groups=network.vmnetkit.dev,resources=vmnetworkconfigs/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Setup registers the IPPool and VMNetworkConfig reconcilers with mgr and
// returns the epoch they run with. mgr's scheme must know v1alpha1's types.
func Setup(mgr ctrl.Manager, opts Options) (epoch string, err error) {
	opts.ControllerOptions = opts.ControllerOptions.WithDefaults()
	if opts.MaxAllocations <= 0 {
		opts.MaxAllocations = DefaultMaxAllocations
	}
	cache := newPoolCache(opts.Epoch)

	events := mgr.GetEventRecorderFor("vmnetkit-operator")
	pools := &poolReconciler{client: mgr.GetClient(), reader: mgr.GetAPIReader(), cache: cache, now: opts.Now,
		limit: opts.MaxAllocations, events: events}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("ippool").
		// Status writes (ours, or another process's) do not move the
		// generation; the machine needs to see spec changes, creation and
		// deletion, and a status it wrote itself would only echo back.
		For(&v1alpha1.IPPool{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(opts.PoolController()).
		Complete(pools)
	if err != nil {
		return "", fmt.Errorf("set up IPPool controller: %w", err)
	}

	indexer := mgr.GetFieldIndexer()
	if err := indexer.IndexField(context.Background(), &v1alpha1.VMNetworkConfig{}, poolIndex, claimPools); err != nil {
		return "", fmt.Errorf("index VMNetworkConfigs by pool: %w", err)
	}
	if err := indexer.IndexField(context.Background(), &v1alpha1.VMNetworkConfig{}, macIndex, claimPoolMACs); err != nil {
		return "", fmt.Errorf("index VMNetworkConfigs by pool and MAC: %w", err)
	}
	claims := &claimReconciler{
		client: mgr.GetClient(),
		pools: &poolWriter{client: mgr.GetClient(), reader: mgr.GetAPIReader(), cache: cache,
			now: opts.Now, limit: opts.MaxAllocations},
		events:  events,
		now:     opts.Now,
		waiting: opts.RetryWaiting,
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("vmnetworkconfig").
		For(&v1alpha1.VMNetworkConfig{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&v1alpha1.IPPool{}, handler.EnqueueRequestsFromMapFunc(claimsOfPool(mgr.GetClient())),
			builder.WithPredicates(cacheReadyChanged{})).
		WithOptions(opts.ClaimController()).
		Complete(claims)
	if err != nil {
		return "", fmt.Errorf("set up VMNetworkConfig controller: %w", err)
	}
	return opts.Epoch, nil
}

// claimPools returns the pools a VMNetworkConfig's NICs name, for poolIndex.
func claimPools(obj client.Object) []string {
	c, ok := obj.(*v1alpha1.VMNetworkConfig)
	if !ok {
		return nil
	}
	var names []string
	for _, n := range c.Spec.NICs {
		names = append(names, n.Pool)
	}
	for _, n := range c.Status.NICs {
		names = append(names, n.Pool)
	}
	return names
}

// claimsOfPool maps an IPPool to the VMNetworkConfigs that use it.
func claimsOfPool(c client.Client) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		var list v1alpha1.VMNetworkConfigList
		if err := c.List(ctx, &list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{poolIndex: obj.GetName()}); err != nil {
			return nil
		}
		reqs := make([]reconcile.Request, 0, len(list.Items))
		for _, item := range list.Items {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&item)})
		}
		return reqs
	}
}

// cacheReadyChanged passes the IPPool updates after which waiting claims may
// proceed: CacheReady or its epoch changed. Allocations (every claim's
// write) pass nothing, or each one would wake every claim of the pool.
type cacheReadyChanged struct{ predicate.Funcs }

func (cacheReadyChanged) Update(e event.UpdateEvent) bool {
	o, ok1 := e.ObjectOld.(*v1alpha1.IPPool)
	n, ok2 := e.ObjectNew.(*v1alpha1.IPPool)
	if !ok1 || !ok2 {
		return true
	}
	oc, oOK := kube.FindMeta(o.Status.Conditions, cacheready.Type)
	nc, nOK := kube.FindMeta(n.Status.Conditions, cacheready.Type)
	// Absent on both sides, the two zero Conditions compare equal.
	return o.Status.CacheEpoch != n.Status.CacheEpoch || oOK != nOK ||
		oc.Status != nc.Status || oc.Reason != nc.Reason || oc.ObservedGeneration != nc.ObservedGeneration
}
