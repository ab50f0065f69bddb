package provider_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/examples/provider"
	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// The translation a reconcile does, without an API server: a VM with a
// DHCP NIC and a static uplink, whose guest tools have not reported the
// lease yet, and whose Node has just registered with it.
func Example() {
	m := &infrav1.VMMachine{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Generation: 1},
		Spec: infrav1.VMMachineSpec{Network: infrav1.NetworkSpec{Devices: []infrav1.NetworkDevice{
			{Type: "IPV4_DHCP", MACAddress: "52:54:00:12:34:56"},
			{Type: "IPV4", MACAddress: "52:54:00:12:34:57", IPAddresses: []string{"192.0.2.10/32"}},
		}}},
		Status: infrav1.VMMachineStatus{Network: []infrav1.NICStatus{
			{MACAddress: "52:54:00:12:34:56", IPAddresses: []string{"fe80::5054:ff:fe12:3456"}},
			{MACAddress: "52:54:00:12:34:57", IPAddresses: []string{"192.0.2.10"}},
		}},
	}
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	show := func(node *corev1.Node) {
		v := provider.Observe(m, provider.ReportedNICs(m.Status.Network), provider.NodeAddrs(node), nil, readiness.Strict)
		status, changed := provider.ApplyVerdict(m.Status, provider.Hostname(m), m.Generation, v, now)
		c, _ := kube.FindMeta(status.Conditions, provider.ConditionVMProvisioned)
		fmt.Printf("changed=%v %s=%s %s %q\n", changed, c.Type, c.Status, c.Reason, c.Message)
		fmt.Println(" ", status.Addresses)
		m.Status = status
	}

	show(nil)
	node := &corev1.Node{Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: "10.0.0.5"},
	}}}
	show(node) // addresses known only from the Node come last
	show(node) // nothing new: nothing to write
	// Output:
	// changed=true VMProvisioned=False WaitingForNetworkAddresses "nic 0 (52:54:00:12:34:56): waiting for dhcp4"
	//   [{Hostname worker-0} {InternalIP 192.0.2.10}]
	// changed=true VMProvisioned=True NetworkReady ""
	//   [{Hostname worker-0} {InternalIP 192.0.2.10} {InternalIP 10.0.0.5}]
	// changed=false VMProvisioned=True NetworkReady ""
	//   [{Hostname worker-0} {InternalIP 192.0.2.10} {InternalIP 10.0.0.5}]
}
