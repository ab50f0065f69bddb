package provider

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
)

// TestDualStackDHCPDevice runs a VMMachine whose device wants DHCPv4 and
// DHCPv6 (IPV4V6_DHCP) on the real API server through what a dual-stack VM
// reports while it boots, with the addresses a dual-stack IPPool of the
// operator hands out (10.30.0.11, fd00:30::1:0). VMProvisioned turns True
// only once both families have a usable address on the device's NIC:
// never with only IPv4, only IPv6, a link-local IPv6 address (the guest's
// own fe80::, on the NIC or as the Node's InternalIP) or the unspecified
// address.
func TestDualStackDHCPDevice(t *testing.T) {
	_, c, ns := kubeEnv(t)
	w := world{t: t, c: c, ns: ns}
	name := ns + "-dual-stack"
	w.createMachine(name, []infrav1.NetworkDevice{device("IPV4V6_DHCP", mac0)})
	r, _ := w.adapter(newFakeClock())
	const v4, v6, ll = "10.30.0.11/24", "fd00:30::1:0/64", "fe80::5054:ff:fe12:3456/64"
	steps := []struct {
		name    string
		nics    []infrav1.NICStatus
		node    []string
		ready   bool
		message string // in the condition's message while not ready
	}{
		{"nothing reported", []infrav1.NICStatus{nic(mac0)}, nil, false, "waiting for dhcp4 and dhcp6"},
		{"only the link-local address", []infrav1.NICStatus{nic(mac0, ll)}, nil, false, "waiting for dhcp4 and dhcp6"},
		{"IPv4 and the link-local address", []infrav1.NICStatus{nic(mac0, v4, ll)}, nil, false, "waiting for dhcp6"},
		{"IPv4 and the unspecified address", []infrav1.NICStatus{nic(mac0, v4, "::")}, nil, false, "waiting for dhcp6"},
		{"IPv4, the Node's InternalIP link-local", []infrav1.NICStatus{nic(mac0, v4, ll)}, []string{"10.30.0.11", "fe80::5054:ff:fe12:3456"}, false, "waiting for dhcp6"},
		{"only the global IPv6 address", []infrav1.NICStatus{nic(mac0, v6, ll)}, nil, false, "waiting for dhcp4"},
		{"both families", []infrav1.NICStatus{nic(mac0, ll, v4, v6)}, nil, true, ""},
	}
	for _, s := range steps {
		w.reportNICs(name, s.nics)
		w.setNode(name, s.node)
		w.reconcile(r, name)
		m := w.getMachine(name)
		cond := meta.FindStatusCondition(m.Status.Conditions, ConditionVMProvisioned)
		if cond == nil {
			t.Fatalf("%s: no %s condition in %+v", s.name, ConditionVMProvisioned, m.Status)
		}
		if got := cond.Status == metav1.ConditionTrue; got != s.ready || cond.ObservedGeneration != m.Generation {
			t.Errorf("%s: %s %s/%s %q (generation %d of %d), want ready %t",
				s.name, ConditionVMProvisioned, cond.Status, cond.Reason, cond.Message, cond.ObservedGeneration, m.Generation, s.ready)
		}
		if !s.ready && !strings.Contains(cond.Message, s.message) {
			t.Errorf("%s: message %q, want it to say %q", s.name, cond.Message, s.message)
		}
		var internal []string
		for _, a := range m.Status.Addresses {
			if a.Type == infrav1.MachineInternalIP {
				internal = append(internal, a.Address)
			}
		}
		if slices.ContainsFunc(internal, func(a string) bool { return strings.HasPrefix(a, "fe80:") || a == "::" }) {
			t.Errorf("%s: status.addresses %v holds a link-local or unspecified address", s.name, internal)
		}
		if s.ready && !slices.Equal(internal, []string{"10.30.0.11", "fd00:30::1:0"}) {
			t.Errorf("%s: InternalIP addresses %v, want [10.30.0.11 fd00:30::1:0]", s.name, internal)
		}
	}
}
