package provider

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
)

// hostnameField indexes VMMachines by [Hostname], to find a Node's machines.
const hostnameField = "vmnetkit.hostname"

// The permissions the reconciler needs (config/rbac/role.yaml is generated
// from these markers and those of the command's manager wiring):
//
// +kubebuilder:rbac:groups=infrastructure.vmnetkit.dev,resources=vmmachines,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.vmnetkit.dev,resources=vmmachines/status,verbs=get;update
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch

// SetupWithManager registers the reconciler with a manager: it watches
// VMMachines, and Nodes whose addresses change (a Node that appears late
// completes a pending DHCP NIC). opts is passed to the controller as is.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	err := mgr.GetFieldIndexer().IndexField(ctx, &infrav1.VMMachine{}, hostnameField, func(o client.Object) []string {
		return []string{Hostname(o.(*infrav1.VMMachine))}
	})
	if err != nil {
		return err
	}
	nodeChanges := predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*corev1.Node)
			n, ok2 := e.ObjectNew.(*corev1.Node)
			return !ok1 || !ok2 || nodeAddressesChanged(o, n)
		},
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("vmmachine-network").
		For(&infrav1.VMMachine{}).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(machinesOfNode(mgr.GetClient())), builder.WithPredicates(nodeChanges)).
		WithOptions(opts).
		Complete(r)
}

// machinesOfNode maps a Node to the VMMachines whose hostname is its name,
// listed from the manager's cache, which holds the hostname index.
func machinesOfNode(cached client.Reader) handler.MapFunc {
	return func(ctx context.Context, node client.Object) []reconcile.Request {
		var list infrav1.VMMachineList
		if err := cached.List(ctx, &list, client.MatchingFields{hostnameField: node.GetName()}); err != nil {
			return nil // the cache lists from memory: an error means a missing index, not a transient fault
		}
		reqs := make([]reconcile.Request, len(list.Items))
		for i := range list.Items {
			reqs[i].NamespacedName = client.ObjectKeyFromObject(&list.Items[i])
		}
		return reqs
	}
}
