package controller_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// TestServesKubeVirt checks the switch of the VirtualMachine controller: an
// API server with KubeVirt's CRDs serves kubevirt.io/v1, one without does
// not (and the operator then runs as before: every other test of this
// package and TestRun of the command run it so).
func TestServesKubeVirt(t *testing.T) {
	tests := []struct {
		name string
		crds []string
		want bool
	}{
		{"with KubeVirt", nil, true}, // the shared server
		{"without KubeVirt", []string{filepath.Join("..", "config", "crd")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := apiServer(t)
			if tt.crds != nil {
				cfg = kubetest.Start(t, tt.crds...)
			}
			got, err := controller.ServesKubeVirt(cfg)
			if err != nil || got != tt.want {
				t.Errorf("ServesKubeVirt() = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// MACs of the test VMs' interfaces.
const (
	mac1 = "52:54:00:00:00:01"
	mac2 = "52:54:00:00:00:02"
	mac3 = "52:54:00:00:00:03"
)

// TestVMBehaviour runs the operator with its VirtualMachine controller on
// the real API server with KubeVirt's own CRDs, the test playing KubeVirt's
// part. Each row is one behaviour of issue 33; each asserts the generated
// configs, their status (the claim's) and pool-a's status.allocated
// (vmKit.expect).
func TestVMBehaviour(t *testing.T) {
	tests := []struct {
		name  string
		extra int // namespaces besides the kit's
		run   func(t *testing.T, k *vmKit)
	}{
		{name: "create with MACs in the spec", run: func(t *testing.T, k *vmKit) {
			k.vm("vm1", iface{"default", "", ""}, iface{"nic1", "net-a", "52-54-00-00-00-01"}, iface{"nic2", "net-a", "52:54:00:00:00:02"})
			k.expect("both Multus NICs served, the pod network skipped", map[string][]nic{
				"vm1": {{"nic1", mac1, "10.20.0.10"}, {"nic2", mac2, "10.20.0.11"}}})
		}},
		{name: "create without MACs: from the instance", run: func(t *testing.T, k *vmKit) {
			k.vm("vm1", iface{"nic1", "net-a", ""})
			k.expect("no config before a MAC is known (none invented)", map[string][]nic{})
			k.instance("vm1", report{name: "nic1", mac: "52:54:00:00:00:01"})
			k.expect("the instance's MAC served", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}}})
		}},
		{name: "hot-plug", run: func(t *testing.T, k *vmKit) {
			k.vm("vm1", iface{"nic1", "net-a", mac1})
			k.instance("vm1", report{name: "nic1", mac: mac1})
			k.expect("nic1", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}}})
			k.editVM("vm1", func(vm *kubevirt.VirtualMachine) { addIface(vm, iface{"nic2", "net-a", ""}) })
			k.expect("nic2 waits for its MAC, nic1 keeps its address", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}}})
			k.instance("vm1", report{name: "nic1", mac: mac1}, report{name: "nic2", mac: mac2})
			k.expect("nic2 served as soon as reported", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}, {"nic2", mac2, "10.20.0.11"}}})
		}},
		{name: "state absent, then removed", run: func(t *testing.T, k *vmKit) {
			k.vm("vm1", iface{"nic1", "net-a", mac1}, iface{"nic2", "net-a", mac2})
			k.instance("vm1", report{name: "nic1", mac: mac1}, report{name: "nic2", mac: mac2})
			both := map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}, {"nic2", mac2, "10.20.0.11"}}}
			k.expect("both", both)
			k.editVM("vm1", func(vm *kubevirt.VirtualMachine) {
				vm.Spec.Template.Spec.Domain.Devices.Interfaces[1].State = kubevirt.InterfaceStateAbsent
			})
			time.Sleep(time.Second) // give the operator the chance to get it wrong
			k.expect("absent but still reported: kept", both)
			k.instance("vm1", report{name: "nic1", mac: mac1})
			k.expect("no longer reported: released", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}}})
			k.editVM("vm1", func(vm *kubevirt.VirtualMachine) {
				s := &vm.Spec.Template.Spec
				s.Domain.Devices.Interfaces, s.Networks = s.Domain.Devices.Interfaces[:1], s.Networks[:1]
			})
			k.expect("removed from the spec", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}}})
		}},
		{name: "last NIC removed", run: func(t *testing.T, k *vmKit) {
			k.vm("vm1", iface{"default", "", ""}, iface{"nic1", "net-a", mac1})
			k.expect("nic1", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}}})
			k.editVM("vm1", func(vm *kubevirt.VirtualMachine) {
				s := &vm.Spec.Template.Spec
				s.Domain.Devices.Interfaces, s.Networks = s.Domain.Devices.Interfaces[:1], s.Networks[:1]
			})
			k.expect("config deleted, address freed", map[string][]nic{})
		}},
		{name: "MAC change", run: func(t *testing.T, k *vmKit) {
			k.vm("vm0", iface{"nic1", "net-a", mac3}) // takes .10, so vm1's address is not the lowest free one
			k.expect("vm0", map[string][]nic{"vm0": {{"nic1", mac3, "10.20.0.10"}}})
			k.vm("vm1", iface{"nic1", "net-a", mac1}, iface{"nic2", "net-a", "52:54:00:00:00:04"})
			k.instance("vm1", report{name: "nic1", mac: mac1}, report{name: "nic2", mac: "52:54:00:00:00:04"})
			k.expect("vm1", map[string][]nic{"vm0": {{"nic1", mac3, "10.20.0.10"}},
				"vm1": {{"nic1", mac1, "10.20.0.11"}, {"nic2", "52:54:00:00:00:04", "10.20.0.12"}}})
			k.delete(&kubevirt.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: "vm0"}}) // .10 is free now
			k.editVM("vm1", func(vm *kubevirt.VirtualMachine) {
				vm.Spec.Template.Spec.Domain.Devices.Interfaces[0].MacAddress = mac2
			})
			time.Sleep(time.Second)
			k.expect("the running instance still has the old MAC", map[string][]nic{
				"vm1": {{"nic1", mac1, "10.20.0.11"}, {"nic2", "52:54:00:00:00:04", "10.20.0.12"}}})
			k.instance("vm1", report{name: "nic1", mac: mac2}, report{name: "nic2", mac: "52:54:00:00:00:04"})
			k.expect("the address follows the name to the new MAC", map[string][]nic{
				"vm1": {{"nic1", mac2, "10.20.0.11"}, {"nic2", "52:54:00:00:00:04", "10.20.0.12"}}})
		}},
		{name: "stop and start", run: func(t *testing.T, k *vmKit) {
			k.vm("vm1", iface{"nic1", "net-a", ""})
			k.instance("vm1", report{name: "nic1", mac: mac1})
			want := map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}}}
			k.expect("running", want)
			k.stopInstance("vm1")
			time.Sleep(time.Second)
			k.expect("stopped: the address stays", want)
			k.instance("vm1")
			time.Sleep(time.Second)
			k.expect("started, nothing reported yet", want)
			k.instance("vm1", report{name: "nic1", mac: mac1})
			k.expect("started", want)
		}},
		{name: "live migration: a new instance", run: func(t *testing.T, k *vmKit) {
			k.vm("vm1", iface{"nic1", "net-a", ""}, iface{"nic2", "net-a", mac2})
			k.instance("vm1", report{name: "nic1", mac: mac1}, report{name: "nic2", mac: mac2})
			// nic2 (MAC in the spec) may be served before the instance reports nic1's MAC.
			first := k.expect("source instance", map[string][]nic{"vm1": {{"nic1", mac1, ""}, {"nic2", mac2, ""}}})
			want := map[string][]nic{"vm1": {{"nic1", mac1, first["vm1"]["nic1"]}, {"nic2", mac2, first["vm1"]["nic2"]}}}
			k.stopInstance("vm1") // the target's instance replaces the source's
			k.instance("vm1", report{name: "nic2", mac: mac2})
			time.Sleep(time.Second)
			k.expect("target instance, nic1 not reported yet", want)
			k.instance("vm1", report{name: "nic1", mac: mac1}, report{name: "nic2", mac: mac2})
			k.expect("target instance", want)
		}},
		{name: "VM deleted, operator running", run: func(t *testing.T, k *vmKit) {
			k.vm("vm1", iface{"nic1", "net-a", mac1})
			k.expect("vm1", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}}})
			k.delete(&kubevirt.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: "vm1"}})
			k.expect("config deleted by the operator (no garbage collector here), address freed", map[string][]nic{})
		}},
		{name: "VM deleted, operator stopped", run: func(t *testing.T, k *vmKit) {
			vm := k.vm("vm1", iface{"nic1", "net-a", mac1})
			k.expect("vm1", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}}})
			cfg := &v1alpha1.VMNetworkConfig{}
			if err := k.c.Get(context.Background(), client.ObjectKeyFromObject(vm), cfg); err != nil {
				t.Fatal(err)
			}
			// What lets the garbage collector delete the config with the VM.
			want := []metav1.OwnerReference{{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachine", Name: "vm1", UID: vm.UID, Controller: ptrTo(true)}}
			if diff := cmp.Diff(want, cfg.OwnerReferences); diff != "" {
				t.Errorf("owner references (-want +got):\n%s", diff)
			}
			k.restart(func() { k.delete(vm) })
			k.expect("the restarted operator deletes the orphan, address freed", map[string][]nic{})
		}},
		{name: "VM recreated with a new UID", run: func(t *testing.T, k *vmKit) {
			old := k.vm("vm1", iface{"nic1", "net-a", mac1})
			k.expect("vm1", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}}})
			var recreated *kubevirt.VirtualMachine
			k.restart(func() {
				k.delete(old)
				recreated = k.vm("vm1", iface{"nic1", "net-a", mac2})
			})
			k.expect("a new config, owned by the new VM", map[string][]nic{"vm1": {{"nic1", mac2, "10.20.0.10"}}})
			if recreated.UID == old.UID {
				t.Fatalf("recreated VM has the old UID %s", old.UID)
			}
		}},
		{name: "hand-written config left alone", run: func(t *testing.T, k *vmKit) {
			hand := &v1alpha1.VMNetworkConfig{ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: "vm1"},
				Spec: v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{{MAC: mac3, Pool: "pool-a"}}}}
			k.create(hand)
			k.vm("vm1", iface{"nic1", "net-a", mac1})
			if msg := k.event("vm1", controller.ReasonConfigNotOwned); !strings.Contains(msg, "left alone") {
				t.Errorf("Event message %q does not say the config is left alone", msg)
			}
			kubetest.Eventually(t, 30*time.Second, "the hand-written config served as written", func() (bool, string) {
				got := &v1alpha1.VMNetworkConfig{}
				if err := k.c.Get(context.Background(), client.ObjectKeyFromObject(hand), got); err != nil {
					return false, err.Error()
				}
				alloc := k.allocated("pool-a")
				ok := claimReady(got) && metav1.GetControllerOf(got) == nil && slices.Equal(got.Spec.NICs, hand.Spec.NICs) &&
					len(alloc) == 1 && alloc["10.20.0.10"] == mac3
				return ok, fmt.Sprintf("config %+v %+v, pool %v", got.Spec, got.Status, alloc)
			})
		}},
		{name: "pool created after the VM", run: func(t *testing.T, k *vmKit) {
			k.vm("vm1", iface{"nic1", "net-b", mac1}, iface{"nic2", "net-a", mac2})
			k.expect("only nic2 served", map[string][]nic{"vm1": {{"nic2", mac2, "10.20.0.10"}}})
			k.event("vm1", controller.ReasonNetworkNotServed)
			k.pool(k.ns, "pool-b", "net-b", "10.30.0.0/24")
			k.expect("both served", map[string][]nic{"vm1": {{"nic1", mac1, ""}, {"nic2", mac2, "10.20.0.10"}}})
			if got := k.allocated("pool-b"); len(got) != 1 || got["10.30.0.10"] != mac1 {
				t.Errorf("pool-b status.allocated = %v, want 10.30.0.10 -> %s", got, mac1)
			}
		}},
		{name: "static address per interface, duplicates refused", run: func(t *testing.T, k *vmKit) {
			vm := &kubevirt.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: "vm1",
				Annotations: map[string]string{controller.AddressesAnnotation: `{"nic2": "10.20.0.50"}`}},
				Spec: kubevirt.VirtualMachineSpec{Template: &kubevirt.Template{}}}
			addIface(vm, iface{"nic1", "net-a", mac1})
			addIface(vm, iface{"nic2", "net-a", mac2})
			k.create(vm)
			k.expect("nic2 at its static address", map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}, {"nic2", mac2, "10.20.0.50"}}})
			dup := &kubevirt.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: "vm2",
				Annotations: map[string]string{controller.AddressesAnnotation: `{"nic1": "10.20.0.50"}`}},
				Spec: kubevirt.VirtualMachineSpec{Template: &kubevirt.Template{}}}
			addIface(dup, iface{"nic1", "net-a", mac3})
			k.create(dup)
			kubetest.Eventually(t, 30*time.Second, "vm2 refused the address vm1 holds", func() (bool, string) {
				cfg := &v1alpha1.VMNetworkConfig{}
				if err := k.c.Get(context.Background(), client.ObjectKeyFromObject(dup), cfg); err != nil {
					return false, err.Error()
				}
				for _, c := range cfg.Status.Conditions {
					if c.Type == v1alpha1.ReadyType && c.Status == metav1.ConditionFalse && c.Reason == controller.ReasonAllocationFailed {
						return len(cfg.Status.NICs) == 0, fmt.Sprintf("status %+v", cfg.Status)
					}
				}
				return false, fmt.Sprintf("status %+v", cfg.Status)
			})
			if got := k.allocated("pool-a"); got["10.20.0.50"] != mac2 || len(got) != 2 {
				t.Errorf("pool-a status.allocated = %v, want 10.20.0.50 still -> %s", got, mac2)
			}
		}},
		{name: "network names and namespaces", extra: 1, run: func(t *testing.T, k *vmKit) {
			other := k.namespaces[1]
			// In the kit's namespace: a pool for a NetworkAttachmentDefinition
			// of another namespace, named in full.
			k.pool(k.ns, "pool-q", other+"/net-q", "10.40.0.0/24")
			// In the other namespace: "net-a" is that namespace's net-a, not
			// the VM's.
			k.pool(other, "pool-o", "net-a", "10.50.0.0/24")
			// Two pools, one network: written unqualified and qualified.
			k.pool(k.ns, "pool-c1", "net-c", "10.60.0.0/24")
			k.pool(k.ns, "pool-c2", k.ns+"/net-c", "10.61.0.0/24")
			k.vm("vm1", iface{"nic1", "net-a", mac1}, iface{"nic2", other + "/net-q", mac2}, iface{"nic3", "net-c", mac3})
			k.expect("net-a is the VM's namespace's; net-c served by neither pool", map[string][]nic{
				"vm1": {{"nic1", mac1, "10.20.0.10"}, {"nic2", mac2, "10.40.0.10"}}})
			if msg := k.event("vm1", controller.ReasonNetworkConflict); !strings.Contains(msg, k.ns+"/net-c") {
				t.Errorf("Event message %q does not name the network", msg)
			}
			k.networkConflict("pool-c1", metav1.ConditionTrue)
			k.networkConflict("pool-c2", metav1.ConditionTrue)
			if got := k.allocated("pool-c1"); len(got) != 0 {
				t.Errorf("pool-c1 status.allocated = %v, want nothing", got)
			}
			// A second pool for net-a, named by mistake, takes no address
			// away; deleting it clears pool-a's conflict.
			dup := k.pool(k.ns, "pool-a2", k.ns+"/net-a", "10.70.0.0/24")
			k.networkConflict("pool-a", metav1.ConditionTrue)
			time.Sleep(time.Second) // pool-a2's creation woke vm1: give it the chance to get it wrong
			k.expect("nic1 keeps its address through the conflict", map[string][]nic{
				"vm1": {{"nic1", mac1, "10.20.0.10"}, {"nic2", mac2, "10.40.0.10"}}})
			k.delete(dup)
			k.networkConflict("pool-a", metav1.ConditionFalse)
		}},
		{name: "NetworkReady from what the guest reports", run: func(t *testing.T, k *vmKit) {
			k.vm("vm1", iface{"default", "", ""}, iface{"nic1", "net-a", mac1}, iface{"nic2", "net-a", mac2})
			want := map[string][]nic{"vm1": {{"nic1", mac1, "10.20.0.10"}, {"nic2", mac2, "10.20.0.11"}}}
			k.expect("both NICs", want)
			k.networkReady("vm1", metav1.ConditionFalse, controller.ReasonNotRunning, "no running instance")
			k.instance("vm1", report{name: "default", mac: mac3, ips: []string{"10.244.0.7"}},
				report{name: "nic1", mac: mac1, ips: []string{"10.20.0.10/24", "fe80::5054:ff:fe00:1"}}, report{name: "nic2", mac: mac2})
			k.networkReady("vm1", metav1.ConditionFalse, readiness.ReasonWaitingForNetworkAddresses, "nic 1 ("+mac2+")")
			k.instance("vm1", report{name: "default", mac: mac3, ips: []string{"10.244.0.7"}},
				report{name: "nic1", mac: mac1, ips: []string{"10.20.0.10/24"}}, report{name: "nic2", mac: mac2, ips: []string{"10.20.0.11"}})
			k.networkReady("vm1", metav1.ConditionTrue, controller.ReasonNetworkReady, "10.20.0.10, 10.20.0.11")
			k.expect("addresses unchanged", want)
		}},
		{name: "16 NICs on one VM", run: func(t *testing.T, k *vmKit) {
			var ifaces []iface
			var want []nic
			for i := range 16 {
				mac := fmt.Sprintf("52:54:00:00:01:%02x", i)
				ifaces = append(ifaces, iface{fmt.Sprintf("nic%d", i), "net-a", mac})
				want = append(want, nic{fmt.Sprintf("nic%d", i), mac, ""})
			}
			k.vm("vm1", ifaces...)
			got := k.expect("16 NICs", map[string][]nic{"vm1": want})
			if len(got["vm1"]) != 16 {
				t.Errorf("%d addresses, want 16", len(got["vm1"]))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newVMKit(t, tt.extra))
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
