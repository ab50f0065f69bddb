package controller_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// vmKit plays KubeVirt's part against the shared API server: it writes
// VirtualMachines (as a user does), VirtualMachineInstances and their
// status (as KubeVirt does), and runs the operator with its VirtualMachine
// controller on the kit's namespaces.
type vmKit struct {
	t          testing.TB
	cfg        *rest.Config
	c          client.Client
	ns         string   // the namespace of the VMs and of pool "pool-a" (network "net-a")
	namespaces []string // every namespace the operator watches
	stop       func()   // stops the running operator; nil when stopped
	epoch      string   // the running operator's: a new one for each start
	starts     int
}

// newVMKit creates a namespace with pool "pool-a" serving network "net-a"
// (10.20.0.0/24, handing out from 10.20.0.10, lowest first) and starts the
// operator on it. extra namespaces are created and watched too.
func newVMKit(t testing.TB, extra int) *vmKit {
	t.Helper()
	cfg := apiServer(t)
	k := &vmKit{t: t, cfg: cfg, c: kubetest.NewClient(t, cfg, scheme)}
	k.ns = kubetest.CreateNamespace(t, k.c, "vm")
	k.namespaces = []string{k.ns}
	for range extra {
		k.namespaces = append(k.namespaces, kubetest.CreateNamespace(t, k.c, "vmx"))
	}
	k.pool(k.ns, "pool-a", "net-a", "10.20.0.0/24")
	k.start()
	// Served from the start: a pool that turns Ready in the middle of a
	// claim's reconcile could give its second NIC the lower address.
	k.cacheReady("pool-a")
	return k
}

// cacheReady waits until pool name publishes CacheReady=True for the
// running operator's epoch.
func (k *vmKit) cacheReady(name string) {
	k.t.Helper()
	kubetest.Eventually(k.t, 30*time.Second, name+" CacheReady=True for epoch "+k.epoch, func() (bool, string) {
		p := &v1alpha1.IPPool{}
		if err := k.c.Get(context.Background(), client.ObjectKey{Namespace: k.ns, Name: name}, p); err != nil {
			return false, err.Error()
		}
		st, reason := cacheReady(p)
		return st == "True" && p.Status.CacheEpoch == k.epoch, fmt.Sprintf("CacheReady=%s/%s epoch %q", st, reason, p.Status.CacheEpoch)
	})
}

// start runs the operator (Setup and SetupVirtualMachines) on the kit's
// namespaces until stop or the test's end.
func (k *vmKit) start() {
	k.t.Helper()
	namespaces := map[string]cache.Config{}
	for _, ns := range k.namespaces {
		namespaces[ns] = cache.Config{}
	}
	mgr, err := ctrl.NewManager(k.cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: namespaces},
	})
	if err != nil {
		k.t.Fatal(err)
	}
	opts := controller.Options{}
	k.starts++
	k.epoch = fmt.Sprintf("%s-%d", k.ns, k.starts) // a restarted process never trusts the old one's CacheReady
	opts.Epoch, opts.RetryWaiting, opts.SkipNameValidation = k.epoch, 250*time.Millisecond, true
	if _, err := controller.Setup(mgr, opts); err != nil {
		k.t.Fatal(err)
	}
	if err := controller.SetupVirtualMachines(mgr, opts); err != nil {
		k.t.Fatal(err)
	}
	k.stop = kubetest.RunManager(k.t, mgr)
}

// restart stops the operator, runs between (the operator is down), and
// starts it again.
func (k *vmKit) restart(between func()) {
	k.t.Helper()
	k.stop()
	between()
	k.start()
}

func (k *vmKit) pool(ns, name, network, cidr string) *v1alpha1.IPPool {
	k.t.Helper()
	p := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.IPPoolSpec{Network: network, CIDR: cidr, RangeStart: strings.TrimSuffix(cidr, "0/24") + "10"}}
	k.create(p)
	return p
}

func (k *vmKit) create(obj client.Object) {
	k.t.Helper()
	if err := k.c.Create(context.Background(), obj); err != nil {
		k.t.Fatal(err)
	}
}

func (k *vmKit) delete(obj client.Object) {
	k.t.Helper()
	if err := k.c.Delete(context.Background(), obj); err != nil {
		k.t.Fatal(err)
	}
}

// iface is one interface of a test VM: on Multus network net (empty: the
// pod network), with mac in the spec (empty: none).
type iface struct{ name, net, mac string }

// vm creates VirtualMachine name in the kit's namespace with ifaces.
func (k *vmKit) vm(name string, ifaces ...iface) *kubevirt.VirtualMachine {
	k.t.Helper()
	vm := &kubevirt.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: name},
		Spec: kubevirt.VirtualMachineSpec{Template: &kubevirt.Template{}}}
	for _, i := range ifaces {
		addIface(vm, i)
	}
	k.create(vm)
	return vm
}

func addIface(vm *kubevirt.VirtualMachine, i iface) {
	s := &vm.Spec.Template.Spec
	s.Domain.Devices.Interfaces = append(s.Domain.Devices.Interfaces, kubevirt.Interface{Name: i.name, MacAddress: i.mac})
	n := kubevirt.Network{Name: i.name}
	if i.net != "" {
		n.Multus = &kubevirt.MultusNetwork{NetworkName: i.net}
	}
	s.Networks = append(s.Networks, n)
}

// editVM changes VM name as a user does (read, change, update: the test
// wrote the whole VM through these types, so nothing is lost).
func (k *vmKit) editVM(name string, change func(vm *kubevirt.VirtualMachine)) {
	k.t.Helper()
	vm := &kubevirt.VirtualMachine{}
	if err := k.c.Get(context.Background(), client.ObjectKey{Namespace: k.ns, Name: name}, vm); err != nil {
		k.t.Fatal(err)
	}
	change(vm)
	if err := k.c.Update(context.Background(), vm); err != nil {
		k.t.Fatal(err)
	}
}

// report is one interface as the instance reports it.
type report struct {
	name, mac string
	ips       []string
}

// instance writes the VirtualMachineInstance of VM name as KubeVirt does:
// created from the VM's template when missing, its status.interfaces set
// to reports.
func (k *vmKit) instance(name string, reports ...report) {
	k.t.Helper()
	ctx := context.Background()
	vmi := &kubevirt.VirtualMachineInstance{}
	err := k.c.Get(ctx, client.ObjectKey{Namespace: k.ns, Name: name}, vmi)
	if apierrors.IsNotFound(err) {
		vm := &kubevirt.VirtualMachine{}
		if err := k.c.Get(ctx, client.ObjectKey{Namespace: k.ns, Name: name}, vm); err != nil {
			k.t.Fatal(err)
		}
		vmi = &kubevirt.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: name}, Spec: vm.Spec.Template.Spec}
		k.create(vmi)
	} else if err != nil {
		k.t.Fatal(err)
	}
	vmi.Status.Interfaces = nil
	for _, r := range reports {
		st := kubevirt.InterfaceStatus{Name: r.name, MAC: r.mac, IPs: r.ips}
		if len(r.ips) > 0 {
			st.IP = r.ips[0]
		}
		vmi.Status.Interfaces = append(vmi.Status.Interfaces, st)
	}
	// A VirtualMachineInstance has no status subresource.
	if err := k.c.Update(ctx, vmi); err != nil {
		k.t.Fatal(err)
	}
}

// stopInstance deletes VM name's instance, as KubeVirt does when it stops.
func (k *vmKit) stopInstance(name string) {
	k.t.Helper()
	k.delete(&kubevirt.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: name}})
}

// nic is what a generated config must hold for one interface: its name,
// MAC and address ("" when the test does not pin it: any address, held in
// the pool's status).
type nic struct{ name, mac, addr string }

// expect waits until the generated configs of the kit's namespace are
// exactly want (VM name -> NICs, in order), each owned by its VM's current
// UID, labelled with its name, Ready, with every NIC's address in its
// status; and until the status.allocated of pool-a and of every pool those
// NICs use holds exactly those addresses, for those MACs. It returns the addresses by VM and interface.
func (k *vmKit) expect(what string, want map[string][]nic) map[string]map[string]string {
	k.t.Helper()
	var got map[string]map[string]string
	kubetest.Eventually(k.t, 30*time.Second, what, func() (bool, string) {
		var msg string
		got, msg = k.check(want)
		return msg == "", msg
	})
	return got
}

func (k *vmKit) check(want map[string][]nic) (map[string]map[string]string, string) {
	ctx := context.Background()
	var list v1alpha1.VMNetworkConfigList
	if err := k.c.List(ctx, &list, client.InNamespace(k.ns), client.HasLabels{controller.VirtualMachineLabel}); err != nil {
		return nil, err.Error()
	}
	addrs := map[string]map[string]string{}
	allocated := map[string]map[string]string{"pool-a": {}} // pool -> address -> MAC, from the configs
	var names []string
	for _, cfg := range list.Items {
		names = append(names, cfg.Name)
		wantNICs, ok := want[cfg.Name]
		if !ok {
			continue
		}
		vm := &kubevirt.VirtualMachine{}
		if err := k.c.Get(ctx, client.ObjectKeyFromObject(&cfg), vm); err != nil {
			return nil, fmt.Sprintf("VM %s: %v", cfg.Name, err)
		}
		owner := metav1.GetControllerOf(&cfg)
		if owner == nil || owner.UID != vm.UID || owner.Kind != "VirtualMachine" || owner.APIVersion != "kubevirt.io/v1" ||
			cfg.Labels[controller.VirtualMachineLabel] != vm.Name {
			return nil, fmt.Sprintf("config %s: owner %+v, labels %v; want VM %s UID %s", cfg.Name, owner, cfg.Labels, vm.Name, vm.UID)
		}
		var gotNICs, wantSpec []nic
		for _, n := range cfg.Spec.NICs {
			gotNICs = append(gotNICs, nic{name: n.Name, mac: n.MAC})
		}
		for _, n := range wantNICs {
			wantSpec = append(wantSpec, nic{name: n.name, mac: n.mac})
		}
		if diff := cmp.Diff(wantSpec, gotNICs, cmp.AllowUnexported(nic{})); diff != "" {
			return nil, fmt.Sprintf("config %s spec NICs (-want +got):\n%s", cfg.Name, diff)
		}
		if !claimReady(&cfg) || len(cfg.Status.NICs) != len(cfg.Spec.NICs) {
			return nil, fmt.Sprintf("config %s not Ready with %d addresses: %+v %+v", cfg.Name, len(cfg.Spec.NICs), cfg.Status.NICs, cfg.Status.Conditions)
		}
		addrs[cfg.Name] = map[string]string{}
		for i, n := range wantNICs {
			s := cfg.Status.NICs[i]
			if s.MAC != n.mac || (n.addr != "" && s.Address != n.addr) {
				return nil, fmt.Sprintf("config %s NIC %s: status %+v, want MAC %s address %q", cfg.Name, n.name, s, n.mac, n.addr)
			}
			addrs[cfg.Name][n.name] = s.Address
			if allocated[s.Pool] == nil {
				allocated[s.Pool] = map[string]string{}
			}
			allocated[s.Pool][s.Address] = s.MAC
		}
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(want)), slices.Sorted(slices.Values(names))); diff != "" {
		return nil, fmt.Sprintf("generated configs (-want +got):\n%s", diff)
	}
	for pool, want := range allocated {
		if diff := cmp.Diff(want, k.allocated(pool)); diff != "" {
			return nil, fmt.Sprintf("%s status.allocated (-configs +pool):\n%s", pool, diff)
		}
	}
	return addrs, ""
}

// allocated returns pool name's status.allocated without the EXCLUDED and
// RESERVED markers.
func (k *vmKit) allocated(name string) map[string]string {
	k.t.Helper()
	p := &v1alpha1.IPPool{}
	if err := k.c.Get(context.Background(), client.ObjectKey{Namespace: k.ns, Name: name}, p); err != nil {
		k.t.Fatal(err)
	}
	out := map[string]string{}
	for a, owner := range p.Status.Allocated {
		if owner != ipam.MarkerExcluded && owner != ipam.MarkerReserved {
			out[a] = owner
		}
	}
	return out
}

// events waits until the VM name has exactly one Event object of reason
// (the recorder merges repeats into its count), and returns its message.
func (k *vmKit) event(name, reason string) string {
	k.t.Helper()
	var message string
	kubetest.Eventually(k.t, 30*time.Second, fmt.Sprintf("one %s Event on VM %s", reason, name), func() (bool, string) {
		var list corev1.EventList
		if err := k.c.List(context.Background(), &list, client.InNamespace(k.ns)); err != nil {
			return false, err.Error()
		}
		var found []string
		for _, e := range list.Items {
			if e.InvolvedObject.Kind == "VirtualMachine" && e.InvolvedObject.Name == name && e.Reason == reason {
				found = append(found, e.Message)
			}
		}
		if len(found) == 1 {
			message = found[0]
		}
		return len(found) == 1, fmt.Sprintf("%d such Events: %q", len(found), found)
	})
	return message
}

// networkReady waits until VM name's generated config has the NetworkReady
// condition status, with reason, for its generation, and a message that
// contains messageHas.
func (k *vmKit) networkReady(name string, status metav1.ConditionStatus, reason, messageHas string) {
	k.t.Helper()
	kubetest.Eventually(k.t, 30*time.Second, fmt.Sprintf("NetworkReady=%s/%s on %s", status, reason, name), func() (bool, string) {
		cfg := &v1alpha1.VMNetworkConfig{}
		if err := k.c.Get(context.Background(), client.ObjectKey{Namespace: k.ns, Name: name}, cfg); err != nil {
			return false, err.Error()
		}
		for _, c := range cfg.Status.Conditions {
			if c.Type == v1alpha1.NetworkReadyType {
				ok := c.Status == status && c.Reason == reason && c.ObservedGeneration == cfg.Generation && strings.Contains(c.Message, messageHas)
				return ok, fmt.Sprintf("%+v", c)
			}
		}
		return false, fmt.Sprintf("no NetworkReady in %+v", cfg.Status.Conditions)
	})
}

// networkConflict waits until pool name of the kit's namespace has its
// NetworkConflict condition status (True: DuplicateNetwork, False:
// UniqueNetwork) for its generation.
func (k *vmKit) networkConflict(name string, status metav1.ConditionStatus) {
	k.t.Helper()
	reason := controller.ReasonUniqueNetwork
	if status == metav1.ConditionTrue {
		reason = controller.ReasonDuplicateNetwork
	}
	kubetest.Eventually(k.t, 30*time.Second, fmt.Sprintf("%s NetworkConflict=%s", name, status), func() (bool, string) {
		p := &v1alpha1.IPPool{}
		if err := k.c.Get(context.Background(), client.ObjectKey{Namespace: k.ns, Name: name}, p); err != nil {
			return false, err.Error()
		}
		for _, c := range p.Status.Conditions {
			if c.Type == controller.NetworkConflictType {
				return c.Status == status && c.Reason == reason && c.ObservedGeneration == p.Generation, fmt.Sprintf("%+v", c)
			}
		}
		return false, fmt.Sprintf("%+v", p.Status.Conditions)
	})
}
