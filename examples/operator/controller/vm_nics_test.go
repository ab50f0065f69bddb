package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// TestNetworkKey checks how network names read: a qualified name as it
// is, an unqualified one in the namespace of the object that names it.
func TestNetworkKey(t *testing.T) {
	tests := []struct{ name, ns, in, want string }{
		{"unqualified: the namespace given", "vms", "net-a", "vms/net-a"},
		{"qualified: as is", "vms", "infra/net-a", "infra/net-a"},
		{"qualified in the same namespace", "vms", "vms/net-a", "vms/net-a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := networkKey(tt.ns, tt.in); got != tt.want {
				t.Errorf("networkKey(%q, %q) = %q, want %q", tt.ns, tt.in, got, tt.want)
			}
		})
	}
}

// TestVMNICs checks where a NIC's MAC and requested address come from,
// without an API server.
func TestVMNICs(t *testing.T) {
	pool := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: "vms", Name: "pool-a"}, Spec: v1alpha1.IPPoolSpec{Network: "net-a"}}
	vm := func(mac, state string) *kubevirt.VirtualMachine {
		return &kubevirt.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "vms", Name: "vm1"},
			Spec: kubevirt.VirtualMachineSpec{Template: &kubevirt.Template{Spec: kubevirt.InstanceSpec{
				Domain:   kubevirt.Domain{Devices: kubevirt.Devices{Interfaces: []kubevirt.Interface{{Name: "nic1", MacAddress: mac, State: state}}}},
				Networks: []kubevirt.Network{{Name: "nic1", Multus: &kubevirt.MultusNetwork{NetworkName: "net-a"}}},
			}}}}
	}
	running := func(mac string) *kubevirt.VirtualMachineInstance {
		return &kubevirt.VirtualMachineInstance{Status: kubevirt.InstanceStatus{Interfaces: []kubevirt.InterfaceStatus{{Name: "nic1", MAC: mac}}}}
	}
	prev := func(mac, addr, held string) *v1alpha1.VMNetworkConfig {
		return &v1alpha1.VMNetworkConfig{
			Spec:   v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{{Name: "nic1", MAC: mac, Pool: "pool-a", Address: addr}}},
			Status: v1alpha1.VMNetworkConfigStatus{NICs: []v1alpha1.NICStatus{{MAC: mac, Pool: "pool-a", Address: held}}},
		}
	}
	second := v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: "vms", Name: "pool-b"}, Spec: v1alpha1.IPPoolSpec{Network: "vms/net-a"}}
	conflict := poolsByNetwork([]v1alpha1.IPPool{*pool, second})
	// pool-x of namespace infra names vms/net-a: that is the VM's network,
	// but a pool serves its own namespace's VMs only.
	elsewhere := poolsByNetwork([]v1alpha1.IPPool{{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "pool-x"}, Spec: v1alpha1.IPPoolSpec{Network: "vms/net-a"}}})
	tests := []struct {
		name   string
		view   vmView
		want   []v1alpha1.NIC
		reason string // of the one skipped interface, if any
	}{
		{"spec MAC in any spelling", vmView{vm: vm("52-54-00-AA-BB-01", "")},
			[]v1alpha1.NIC{{Name: "nic1", MAC: "52:54:00:aa:bb:01", Pool: "pool-a"}}, ""},
		{"no MAC anywhere: no NIC, none invented", vmView{vm: vm("", "")}, nil, ""},
		{"the instance's MAC before the spec's", vmView{vm: vm("52:54:00:00:00:02", ""), vmi: running("52:54:00:00:00:01")},
			[]v1alpha1.NIC{{Name: "nic1", MAC: "52:54:00:00:00:01", Pool: "pool-a"}}, ""},
		{"stopped: the previous config's MAC", vmView{vm: vm("", ""), prev: prev("52:54:00:00:00:01", "", "10.0.0.10")},
			[]v1alpha1.NIC{{Name: "nic1", MAC: "52:54:00:00:00:01", Pool: "pool-a"}}, ""},
		{"MAC changed: asks for the old MAC's address", vmView{vm: vm("", ""), vmi: running("52:54:00:00:00:02"), prev: prev("52:54:00:00:00:01", "", "10.0.0.10")},
			[]v1alpha1.NIC{{Name: "nic1", MAC: "52:54:00:00:00:02", Pool: "pool-a", Address: "10.0.0.10"}}, ""},
		{"the followed address is kept while held", vmView{vm: vm("", ""), vmi: running("52:54:00:00:00:02"), prev: prev("52:54:00:00:00:02", "10.0.0.10", "10.0.0.10")},
			[]v1alpha1.NIC{{Name: "nic1", MAC: "52:54:00:00:00:02", Pool: "pool-a", Address: "10.0.0.10"}}, ""},
		{"static address of the annotation", vmView{vm: vm("52:54:00:00:00:01", ""), static: map[string]string{"nic1": "10.0.0.50"}},
			[]v1alpha1.NIC{{Name: "nic1", MAC: "52:54:00:00:00:01", Pool: "pool-a", Address: "10.0.0.50"}}, ""},
		{"absent and still reported: kept", vmView{vm: vm("52:54:00:00:00:01", kubevirt.InterfaceStateAbsent), vmi: running("52:54:00:00:00:01")},
			[]v1alpha1.NIC{{Name: "nic1", MAC: "52:54:00:00:00:01", Pool: "pool-a"}}, ""},
		{"absent and not reported: gone", vmView{vm: vm("52:54:00:00:00:01", kubevirt.InterfaceStateAbsent), vmi: running("")}, nil, ""},
		{"invalid MAC", vmView{vm: vm("52:54:00", "")}, nil, ReasonInvalidMAC},
		{"conflict: no new NIC", vmView{vm: vm("52:54:00:00:00:01", ""), pools: conflict}, nil, ReasonNetworkConflict},
		{"conflict: the previous NIC stays", vmView{vm: vm("52:54:00:00:00:01", ""), pools: conflict, prev: prev("52:54:00:00:00:01", "", "10.0.0.10")},
			[]v1alpha1.NIC{{Name: "nic1", MAC: "52:54:00:00:00:01", Pool: "pool-a"}}, ReasonNetworkConflict},
		{"another namespace's pool does not serve", vmView{vm: vm("52:54:00:00:00:01", ""), pools: elsewhere}, nil, ReasonNetworkNotServed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.view.pools == nil {
				tt.view.pools = poolsByNetwork([]v1alpha1.IPPool{*pool})
			}
			if tt.view.vmi != nil && tt.view.vmi.Status.Interfaces[0].MAC == "" {
				tt.view.vmi.Status.Interfaces = nil
			}
			got, skipped := vmNICs(tt.view)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NICs (-want +got):\n%s", diff)
			}
			var reasons []string
			for _, s := range skipped {
				reasons = append(reasons, s.Reason)
			}
			var want []string
			if tt.reason != "" {
				want = []string{tt.reason}
			}
			if diff := cmp.Diff(want, reasons); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}
