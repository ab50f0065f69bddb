package controller

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// TestNetworkReady checks the NetworkReady condition: readiness.Evaluate
// (Strict) of the instance's reports against the config's NICs, each a
// DHCP device of its pool's families.
func TestNetworkReady(t *testing.T) {
	cfg := &v1alpha1.VMNetworkConfig{Spec: v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{
		{Name: "nic1", MAC: "52:54:00:00:00:01", Pool: "v4"},
		{Name: "nic2", MAC: "52:54:00:00:00:02", Pool: "dual"},
	}}}
	cfg.Generation = 3
	pools := map[string]*v1alpha1.IPPool{
		"v4":   {Spec: v1alpha1.IPPoolSpec{CIDR: "10.0.0.0/24"}},
		"dual": {Spec: v1alpha1.IPPoolSpec{CIDR: "10.1.0.0/24", IPv6: &v1alpha1.IPPoolIPv6Spec{CIDR: "fd00::/64"}}},
	}
	vmi := func(ifaces ...kubevirt.InterfaceStatus) *kubevirt.VirtualMachineInstance {
		return &kubevirt.VirtualMachineInstance{Status: kubevirt.InstanceStatus{Interfaces: ifaces}}
	}
	tests := []struct {
		name       string
		vmi        *kubevirt.VirtualMachineInstance
		status     conditions.Status
		reason     string
		messageHas []string
	}{
		{"no instance", nil, conditions.ConditionFalse, ReasonNotRunning, []string{"no running instance"}},
		{"nothing reported", vmi(), conditions.ConditionFalse, readiness.ReasonWaitingForNetworkAddresses, []string{"nic 0", "nic 1"}},
		{"every family reported", vmi(
			kubevirt.InterfaceStatus{Name: "nic1", MAC: "52:54:00:00:00:01", IP: "10.0.0.10/24", IPs: []string{"10.0.0.10/24", "fe80::1%eth0"}},
			kubevirt.InterfaceStatus{Name: "nic2", MAC: "52-54-00-00-00-02", IPs: []string{"10.1.0.10", "fd00::10"}},
		), conditions.ConditionTrue, ReasonNetworkReady, []string{"10.0.0.10", "10.1.0.10", "fd00::10"}},
		{"dual-stack NIC without its IPv6 address", vmi(
			kubevirt.InterfaceStatus{Name: "nic1", MAC: "52:54:00:00:00:01", IP: "10.0.0.10"},
			kubevirt.InterfaceStatus{Name: "nic2", MAC: "52:54:00:00:00:02", IP: "10.1.0.10"},
		), conditions.ConditionFalse, readiness.ReasonWaitingForNetworkAddresses, []string{"nic 1", "dhcp6"}},
		{"address on another MAC is not credited", vmi(
			kubevirt.InterfaceStatus{Name: "nic1", MAC: "52:54:00:00:00:09", IP: "10.0.0.10"},
			kubevirt.InterfaceStatus{Name: "nic2", MAC: "52:54:00:00:00:02", IPs: []string{"10.1.0.10", "fd00::10"}},
		), conditions.ConditionFalse, readiness.ReasonWaitingForNetworkAddresses, []string{"nic 0"}},
		{"only link-local reported", vmi(
			kubevirt.InterfaceStatus{Name: "nic1", MAC: "52:54:00:00:00:01", IP: "169.254.0.5"},
			kubevirt.InterfaceStatus{Name: "nic2", MAC: "52:54:00:00:00:02", IPs: []string{"10.1.0.10", "fd00::10"}},
		), conditions.ConditionFalse, readiness.ReasonWaitingForNetworkAddresses, []string{"nic 0"}},
		{"text that does not parse is left out and named", vmi(
			kubevirt.InterfaceStatus{Name: "nic1", MAC: "52:54:00:00:00:01", IP: "10.0.0.300"},
		), conditions.ConditionFalse, readiness.ReasonWaitingForNetworkAddresses, []string{"left out", `"10.0.0.300"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := networkReady(cfg, tt.vmi, pools)
			want := conditions.Condition{Type: v1alpha1.NetworkReadyType, Status: tt.status, Reason: tt.reason, ObservedGeneration: 3, Message: got.Message}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("networkReady (-want +got):\n%s", diff)
			}
			for _, s := range tt.messageHas {
				if !strings.Contains(got.Message, s) {
					t.Errorf("message %q does not contain %q", got.Message, s)
				}
			}
			stamped := got
			stamped.LastTransitionTime = time.Unix(1, 0).UTC() // the writer sets it
			if err := conditions.Validate(stamped); err != nil {
				t.Errorf("the API server would refuse it: %v", err)
			}
		})
	}
}
