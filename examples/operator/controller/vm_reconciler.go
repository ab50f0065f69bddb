package controller

import (
	"context"
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/examples/internal/conflict"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
)

const (
	// VirtualMachineLabel is the label of a generated VMNetworkConfig that
	// names its VirtualMachine.
	VirtualMachineLabel = "network.vmnetkit.dev/virtual-machine"

	// AddressesAnnotation on a VirtualMachine asks for static addresses per
	// interface name, as a JSON object: {"nic1": "10.0.0.9"}. An address
	// held by another MAC is refused as for any VMNetworkConfig (Ready=False,
	// AllocationFailed).
	AddressesAnnotation = "network.vmnetkit.dev/addresses"

	// ReasonConfigNotOwned: a VMNetworkConfig of the VM's name exists that
	// the operator did not generate; it is left alone.
	ReasonConfigNotOwned = "ConfigNotOwned"
	// ReasonInvalidAddresses: the VM's AddressesAnnotation does not parse;
	// it is ignored.
	ReasonInvalidAddresses = "InvalidAddresses"
)

// vmReconciler keeps one generated VMNetworkConfig per KubeVirt
// VirtualMachine: same name and namespace, controlled by the VM, labelled
// with its name, one NIC per interface vmNICs serves, and the NetworkReady
// condition from what the running instance reports. It never writes a VM or
// an instance.
type vmReconciler struct {
	client client.Client
	events record.EventRecorder
	now    func() time.Time
}

func (r *vmReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	vm, err := getIfExists(ctx, r.client, req.NamespacedName, &kubevirt.VirtualMachine{})
	if err != nil {
		return reconcile.Result{}, err
	}
	cfg, err := getIfExists(ctx, r.client, req.NamespacedName, &v1alpha1.VMNetworkConfig{})
	if err != nil {
		return reconcile.Result{}, err
	}
	if cfg != nil && !generated(cfg) {
		if vm != nil {
			r.events.Eventf(vm, corev1.EventTypeWarning, ReasonConfigNotOwned,
				"VMNetworkConfig %s was not generated from this VM: it is left alone, and the VM's interfaces get no address from the operator", cfg.Name)
		}
		return reconcile.Result{}, nil
	}
	if vm == nil || !vm.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, r.delete(ctx, cfg, "its VM is gone")
	}
	if cfg != nil && metav1.GetControllerOf(cfg).UID != vm.UID {
		// The VM was recreated under the same name: the old config goes
		// (releasing its addresses), and the next reconcile makes a new one.
		if err := r.delete(ctx, cfg, "its VM was recreated"); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{RequeueAfter: 100 * time.Millisecond}, nil
	}
	vmi, err := getIfExists(ctx, r.client, req.NamespacedName, &kubevirt.VirtualMachineInstance{})
	if err != nil {
		return reconcile.Result{}, err
	}
	var pools v1alpha1.IPPoolList
	if err := r.client.List(ctx, &pools); err != nil {
		return reconcile.Result{}, err
	}
	nics, skipped := vmNICs(vmView{vm: vm, vmi: vmi, pools: poolsByNetwork(pools.Items), static: r.static(vm), prev: cfg})
	r.reportSkipped(vm, skipped)
	if len(nics) == 0 {
		return reconcile.Result{}, r.delete(ctx, cfg, "its VM has no NIC a pool serves")
	}
	cfg, res, err := r.write(ctx, vm, cfg, nics)
	if cfg == nil {
		return res, err
	}
	// One line per reconcile at -v 1, as the other reconcilers.
	log.FromContext(ctx).V(1).Info("virtual machine reconciled", "nics", len(nics), "skipped", len(skipped), "running", vmi != nil)
	return reconcile.Result{}, r.setNetworkReady(ctx, cfg, vmi, pools.Items)
}

// getIfExists reads key into obj: obj when it exists, nil when it does not.
func getIfExists[T client.Object](ctx context.Context, c client.Client, key types.NamespacedName, obj T) (T, error) {
	var none T
	if err := c.Get(ctx, key, obj); err != nil {
		return none, client.IgnoreNotFound(err)
	}
	return obj, nil
}

// reportSkipped records one Event per interface vmNICs skipped. Identical
// Events are merged into one by the recorder (its count grows), so a VM
// gets one Event per reason and interface.
func (r *vmReconciler) reportSkipped(vm *kubevirt.VirtualMachine, skipped []skippedNIC) {
	for _, s := range skipped {
		kind := corev1.EventTypeWarning // a conflict or a bad MAC needs a user
		if s.Reason == ReasonNetworkNotServed {
			kind = corev1.EventTypeNormal // a network the operator is not asked to serve
		}
		r.events.Event(vm, kind, s.Reason, s.Message)
	}
}

// write creates vm's config with nics, or updates cfg's NICs to nics when
// they differ. It returns the config as written, or nil and the result to
// return when the reconcile ends here (a create the cache has not seen, a
// conflict).
func (r *vmReconciler) write(ctx context.Context, vm *kubevirt.VirtualMachine, cfg *v1alpha1.VMNetworkConfig, nics []v1alpha1.NIC) (*v1alpha1.VMNetworkConfig, reconcile.Result, error) {
	if cfg == nil {
		cfg = &v1alpha1.VMNetworkConfig{ObjectMeta: metav1.ObjectMeta{
			Name: vm.Name, Namespace: vm.Namespace,
			Labels:          map[string]string{VirtualMachineLabel: vm.Name},
			OwnerReferences: []metav1.OwnerReference{vmOwner(vm)},
		}, Spec: v1alpha1.VMNetworkConfigSpec{NICs: nics}}
		if err := r.client.Create(ctx, cfg); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return nil, reconcile.Result{Requeue: true}, nil // the cache has not seen it yet
			}
			res, err := conflict.Requeue(err)
			return nil, res, err
		}
		return cfg, reconcile.Result{}, nil
	}
	if !equality.Semantic.DeepEqual(cfg.Spec.NICs, nics) {
		cfg.Spec.NICs = nics
		if err := r.client.Update(ctx, cfg); err != nil {
			res, err := conflict.Requeue(err)
			return nil, res, err
		}
	}
	return cfg, reconcile.Result{}, nil
}

// setNetworkReady writes cfg's NetworkReady condition when it changed.
func (r *vmReconciler) setNetworkReady(ctx context.Context, cfg *v1alpha1.VMNetworkConfig, vmi *kubevirt.VirtualMachineInstance, pools []v1alpha1.IPPool) error {
	byName := map[string]*v1alpha1.IPPool{}
	for i := range pools {
		if pools[i].Namespace == cfg.Namespace {
			byName[pools[i].Name] = &pools[i]
		}
	}
	conds, changed := kube.SetMeta(cfg.Status.Conditions, networkReady(cfg, vmi, byName), r.now())
	if !changed {
		return nil
	}
	upd := cfg.DeepCopy()
	upd.Status.Conditions = conds
	if err := r.client.Status().Update(ctx, upd); err != nil && !apierrors.IsConflict(err) {
		return err
	}
	// On a conflict the claim's write that caused it wakes this VM again.
	return nil
}

// delete deletes cfg, a generated config, if not nil; its finalizer
// releases its addresses. The UID precondition keeps a config created since
// it was read.
func (r *vmReconciler) delete(ctx context.Context, cfg *v1alpha1.VMNetworkConfig, why string) error {
	if cfg == nil || !cfg.DeletionTimestamp.IsZero() {
		return nil
	}
	err := r.client.Delete(ctx, cfg, client.Preconditions{UID: ptr.To(cfg.UID)})
	if client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
		return err
	}
	log.FromContext(ctx).V(1).Info("deleted generated VMNetworkConfig", "why", why)
	return nil
}

// static returns the addresses vm's AddressesAnnotation asks for, by
// interface name; one Warning Event when it does not parse.
func (r *vmReconciler) static(vm *kubevirt.VirtualMachine) map[string]string {
	text, ok := vm.Annotations[AddressesAnnotation]
	if !ok {
		return nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		r.events.Eventf(vm, corev1.EventTypeWarning, ReasonInvalidAddresses, "annotation %s: %v; it is ignored", AddressesAnnotation, err)
		return nil
	}
	return m
}

// generated reports whether cfg is controlled by a KubeVirt VirtualMachine
// of its own name: a config this controller generated.
func generated(cfg *v1alpha1.VMNetworkConfig) bool {
	o := metav1.GetControllerOf(cfg)
	return o != nil && o.APIVersion == kubevirt.GroupVersion.String() && o.Kind == "VirtualMachine" && o.Name == cfg.Name
}

// vmOwner is the controller owner reference to vm, which lets the garbage
// collector delete the generated config with its VM while the operator is
// not running.
func vmOwner(vm *kubevirt.VirtualMachine) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: kubevirt.GroupVersion.String(), Kind: "VirtualMachine", Name: vm.Name, UID: vm.UID,
		// Not BlockOwnerDeletion: with the OwnerReferencesPermissionEnforcement
		// admission plugin it would need a write permission on VMs.
		Controller: ptr.To(true),
	}
}

// vmOf maps an object of a VM's name (its instance, its generated config)
// to the VM's request.
func vmOf(_ context.Context, obj client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}}}
}
