package controller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// The reads of the VirtualMachine controller (config/rbac/role.yaml is
// generated from these markers, with Setup's): it never writes a VM or an
// instance, and creates and deletes the VMNetworkConfigs it generates.
//
// +kubebuilder:rbac:groups=kubevirt.io,resources=virtualmachines;virtualmachineinstances,verbs=get;list;watch
// +kubebuilder:rbac:groups=network.vmnetkit.dev,resources=vmnetworkconfigs,verbs=create;delete
// +kubebuilder:rbac:groups=network.vmnetkit.dev,resources=ippools/status,verbs=update

// ServesKubeVirt reports whether the API server of cfg serves KubeVirt's
// VirtualMachines and VirtualMachineInstances in kubevirt.io/v1 (discovery,
// which every authenticated user may read). The operator starts its
// VirtualMachine controller only then, and runs as before without it.
func ServesKubeVirt(cfg *rest.Config) (bool, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return false, err
	}
	list, err := dc.ServerResourcesForGroupVersion(kubevirt.GroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discover %s: %w", kubevirt.GroupVersion, err)
	}
	found := map[string]bool{}
	for _, r := range list.APIResources {
		found[r.Name] = true
	}
	return found["virtualmachines"] && found["virtualmachineinstances"], nil
}

// SetupVirtualMachines registers the VirtualMachine controller (one
// generated VMNetworkConfig per KubeVirt VirtualMachine) and the IPPools'
// NetworkConflict controller with mgr, beside Setup's. mgr's scheme must
// know kubevirt's and v1alpha1's types, and its API server must serve
// kubevirt.io/v1 (ServesKubeVirt).
func SetupVirtualMachines(mgr ctrl.Manager, opts Options) error {
	opts.ControllerOptions = opts.ControllerOptions.WithDefaults()
	c := mgr.GetClient()
	vms := &vmReconciler{client: c, events: mgr.GetEventRecorderFor("vmnetkit-operator"), now: opts.Now}
	err := ctrl.NewControllerManagedBy(mgr).
		Named("virtualmachine").
		// A VM's generation moves with its spec; its annotations (static
		// addresses) do not move it. Its status (KubeVirt's) is not read.
		For(&kubevirt.VirtualMachine{}, builder.WithPredicates(
			predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		// The instance's reports (MACs, addresses) and the config's status
		// (its addresses, for NetworkReady) wake the VM of their name.
		Watches(&kubevirt.VirtualMachineInstance{}, handler.EnqueueRequestsFromMapFunc(vmOf)).
		Watches(&v1alpha1.VMNetworkConfig{}, handler.EnqueueRequestsFromMapFunc(vmOf)).
		// A pool created, changed or deleted may serve (or stop serving)
		// the VMs of its namespace and of its network's.
		Watches(&v1alpha1.IPPool{}, handler.EnqueueRequestsFromMapFunc(vmsOfPool(c)),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(opts.ClaimController()).
		Complete(vms)
	if err != nil {
		return fmt.Errorf("set up VirtualMachine controller: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("ippool-network").
		For(&v1alpha1.IPPool{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&v1alpha1.IPPool{}, handler.EnqueueRequestsFromMapFunc(poolsToRecheck(c)),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(opts.PoolController()).
		Complete(&networkConflictReconciler{client: c, now: opts.Now})
	if err != nil {
		return fmt.Errorf("set up IPPool network controller: %w", err)
	}
	return nil
}

// vmsOfPool maps an IPPool to the VMs of its namespace and of its network's
// namespace.
func vmsOfPool(c client.Client) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		p, ok := obj.(*v1alpha1.IPPool)
		if !ok {
			return nil
		}
		namespaces := map[string]bool{p.Namespace: true}
		if ns, _, ok := cutNamespace(poolNetworkKey(p)); ok {
			namespaces[ns] = true
		}
		var reqs []reconcile.Request
		for ns := range namespaces {
			var vms kubevirt.VirtualMachineList
			if err := c.List(ctx, &vms, client.InNamespace(ns)); err != nil {
				continue
			}
			for _, vm := range vms.Items {
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&vm)})
			}
		}
		return reqs
	}
}
