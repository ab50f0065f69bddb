package controller_test

import (
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// TestVMSamples walks the README's KubeVirt path: the sample IPPool and
// VirtualMachine (config/samples/kubevirt, applied as written, through
// KubeVirt's own CRD schema), the instance reporting the interface's MAC,
// then the guest reporting its address (the DHCP agent's lease), and
// checks the generated config, its NetworkReady condition and the pool's
// status.allocated (what the DHCP agent serves).
func TestVMSamples(t *testing.T) {
	k := newVMKit(t, 0)
	for _, file := range []string{"ippool.yaml", "virtualmachine.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "config", "samples", "kubevirt", file))
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		u.SetNamespace(k.ns)
		k.create(u)
	}
	const mac = "02:8a:1c:00:00:07" // as KubeVirt's bridge binding would choose it
	k.instance("vm-2", report{name: "default", mac: "02:8a:1c:00:00:06", ips: []string{"10.244.0.7"}}, report{name: "lan", mac: mac})
	want := map[string][]nic{"vm-2": {{"lan", mac, "192.168.60.50"}}}
	k.expect("vm-2's lan at its static address", want)
	k.networkReady("vm-2", metav1.ConditionFalse, "WaitingForNetworkAddresses", "nic 0 ("+mac+")")
	k.instance("vm-2", report{name: "default", mac: "02:8a:1c:00:00:06", ips: []string{"10.244.0.7"}},
		report{name: "lan", mac: mac, ips: []string{"192.168.60.50/24", "fe80::8a:1cff:fe00:7"}})
	k.networkReady("vm-2", metav1.ConditionTrue, controller.ReasonNetworkReady, "192.168.60.50")
	if got := k.allocated("vm-bridge"); len(got) != 1 || got["192.168.60.50"] != mac {
		t.Errorf("vm-bridge status.allocated = %v, want 192.168.60.50 -> %s", got, mac)
	}
}
