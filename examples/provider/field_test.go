package provider

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// TestFieldCase1DHCPAndStatic240Uplink runs case 1 of docs/field-cases.md on
// the real API server: a VMMachine with the field's two devices (NIC 0 IPv4
// DHCP, NIC 1 static 240.255.0.1 with netmask 255.255.255.255) goes through
// the four rows of the field's table in turn, reported as the hypervisor
// (status.network) and the Node (InternalIP) report them, under both
// policies; after each row VMProvisioned is True exactly when the table
// says. The policies agree on these rows (readiness's own field test shows
// where they differ).
func TestFieldCase1DHCPAndStatic240Uplink(t *testing.T) {
	_, c, ns := kubeEnv(t)
	w := world{t: t, c: c, ns: ns}
	const dhcpMAC, uplinkMAC = "00:50:56:a1:00:01", "00:50:56:a1:00:02"
	devices := []infrav1.NetworkDevice{
		device("IPV4_DHCP", dhcpMAC),
		device("IPV4", uplinkMAC, "240.255.0.1/32"),
	}
	rows := []struct {
		name  string
		nics  []infrav1.NICStatus
		node  []string // nil: the Node reports no InternalIP
		ready bool
	}{
		{"row 1: NIC 0 nothing, NIC 1 240.255.0.1", []infrav1.NICStatus{nic(dhcpMAC), nic(uplinkMAC, "240.255.0.1/32")}, nil, false},
		{"row 2: NIC 0 10.255.67.5, NIC 1 240.255.0.1", []infrav1.NICStatus{nic(dhcpMAC, "10.255.67.5/16"), nic(uplinkMAC, "240.255.0.1/32")}, nil, true},
		{"row 3: NICs nothing, the Node 10.255.67.5", []infrav1.NICStatus{nic(dhcpMAC), nic(uplinkMAC)}, []string{"10.255.67.5"}, true},
		{"row 4: NICs nothing, the Node only 240.255.0.1", []infrav1.NICStatus{nic(dhcpMAC), nic(uplinkMAC)}, []string{"240.255.0.1"}, false},
	}
	for _, policy := range []readiness.Policy{readiness.Strict, readiness.Counting} {
		t.Run(policy.String(), func(t *testing.T) {
			name := fmt.Sprintf("%s-field-1-%s", ns, strings.ToLower(policy.String()))
			w.createMachine(name, devices)
			r, _ := w.adapter(newFakeClock())
			r.Policy = policy
			for _, row := range rows {
				w.reportNICs(name, row.nics)
				w.setNode(name, row.node)
				w.reconcile(r, name)
				m := w.getMachine(name)
				cond := meta.FindStatusCondition(m.Status.Conditions, ConditionVMProvisioned)
				if cond == nil {
					t.Fatalf("%s: no %s condition in %+v", row.name, ConditionVMProvisioned, m.Status)
				}
				if got := cond.Status == metav1.ConditionTrue; got != row.ready {
					t.Errorf("%s: %s %s/%s %q, want ready %t", row.name, ConditionVMProvisioned, cond.Status, cond.Reason, cond.Message, row.ready)
				}
				if cond.ObservedGeneration != m.Generation {
					t.Errorf("%s: condition of generation %d, machine at %d", row.name, cond.ObservedGeneration, m.Generation)
				}
			}
		})
	}
}
