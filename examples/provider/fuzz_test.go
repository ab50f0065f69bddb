package provider

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/kubebridge"
	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// FuzzObserve feeds arbitrary user and hypervisor strings through the whole
// translation: it must never panic, always produce a condition the API
// server accepts, and report no change when applied a second time.
func FuzzObserve(f *testing.F) {
	f.Add("IPV4_DHCP", mac0, "", mac0, "10.0.0.5/24,fe80::1%eth0", "10.0.0.5", false)
	f.Add("IPV4", "", "192.0.2.10/32", "", "192.0.2.10", "", true)
	f.Add("NONE", "aabb.ccdd.eeff", "10.0.0.1", "AA-BB-CC-DD-EE-FF", "", "2001:db8::1", false)
	f.Add("ipv4_dhcp", "52:54:00", "10.0.0.300", "zz", "::ffff:10.0.0.5,0.0.0.0", "not-an-ip", true)
	f.Add("IPV4V6_DHCP", mac1, "", mac1, "10.0.0.5/40,/,", "", false)
	f.Fuzz(func(t *testing.T, typ, mac, static, nicMAC, nicAddrs, nodeAddr string, counting bool) {
		m := machine("ns", "vm-0", []infrav1.NetworkDevice{
			{Type: typ, MACAddress: mac, IPAddresses: splitList(static)},
			{Type: "IPV4_DHCP"},
		})
		m.Status.Network = []infrav1.NICStatus{{MACAddress: nicMAC, IPAddresses: splitList(nicAddrs)}}
		node := nodeWith(corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: nodeAddr})
		p := readiness.Strict
		if counting {
			p = readiness.Counting
		}
		v := Observe(m, ReportedNICs(m.Status.Network), NodeAddrs(node), nil, p)
		if v.Ready != (v.Reason == "") {
			t.Fatalf("Ready %v with reason %q", v.Ready, v.Reason)
		}
		now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
		status, changed := ApplyVerdict(m.Status, Hostname(m), 1, v, now)
		if !changed {
			t.Fatalf("first ApplyVerdict reported no change")
		}
		c, ok := conditions.Find(kubebridge.FromMeta(status.Conditions), ConditionVMProvisioned)
		if !ok {
			t.Fatalf("no condition in %+v", status)
		}
		if err := conditions.Validate(c); err != nil {
			t.Fatalf("condition the API server would reject: %v", err)
		}
		if _, again := ApplyVerdict(status, Hostname(m), 1, v, now.Add(time.Hour)); again {
			t.Fatalf("second ApplyVerdict of the same verdict reported a change")
		}
	})
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
