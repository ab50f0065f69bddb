package provider

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
)

func fullMachine() *VMMachine {
	return &VMMachine{
		TypeMeta:   metav1.TypeMeta{Kind: "VMMachine", APIVersion: GroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm-0", Labels: map[string]string{"a": "b"}, Generation: 2},
		Spec: VMMachineSpec{Hostname: "worker-0", Network: NetworkSpec{Devices: []NetworkDevice{
			device("IPV4_DHCP", mac0), device("IPV4", mac1, "192.0.2.10/32"),
		}}},
		Status: VMMachineStatus{
			Network:    []NICStatus{nic(mac0, "10.0.0.5"), nic(mac1, "192.0.2.10")},
			Addresses:  wantAddresses("worker-0", []string{"10.0.0.5"}),
			Conditions: []conditions.Condition{{Type: "VMProvisioned", Status: conditions.ConditionTrue, LastTransitionTime: time.Unix(1, 0).UTC(), Reason: "NetworkReady"}},
		},
	}
}

// scribble changes every element a shallow copy would share.
func scribble(m *VMMachine) {
	m.Labels["a"] = "changed"
	m.Spec.Network.Devices[1].IPAddresses[0] = "changed"
	m.Spec.Network.Devices[0].Type = "changed"
	m.Status.Network[0].IPAddresses[0] = "changed"
	m.Status.Network[1].MACAddress = "changed"
	m.Status.Addresses[0].Address = "changed"
	m.Status.Conditions[0].Reason = "Changed"
}

func TestDeepCopy(t *testing.T) {
	orig := fullMachine()
	cp := orig.DeepCopyObject().(*VMMachine)
	if diff := cmp.Diff(fullMachine(), cp); diff != "" {
		t.Fatalf("copy differs (-want +got):\n%s", diff)
	}
	scribble(cp)
	if diff := cmp.Diff(fullMachine(), orig); diff != "" {
		t.Errorf("changing the copy changed the original (-want +got):\n%s", diff)
	}

	list := &VMMachineList{Items: []VMMachine{*fullMachine()}}
	lcp := list.DeepCopyObject().(*VMMachineList)
	scribble(&lcp.Items[0])
	if diff := cmp.Diff(fullMachine(), &list.Items[0]); diff != "" {
		t.Errorf("changing the list copy changed the original (-want +got):\n%s", diff)
	}

	var nilMachine *VMMachine
	var nilList *VMMachineList
	if nilMachine.DeepCopy() != nil || nilList.DeepCopy() != nil || (*VMMachineStatus)(nil).DeepCopy() != nil {
		t.Errorf("DeepCopy of nil is not nil")
	}
}
