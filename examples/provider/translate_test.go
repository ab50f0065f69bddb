package provider

import (
	"encoding/json"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/internal/netiptest"
	"github.com/vmnetkit/vmnetkit/kube"
	"github.com/vmnetkit/vmnetkit/readiness"
)

func mustAddrs(ss ...string) []netip.Addr {
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out
}

func nodeWith(addrs ...corev1.NodeAddress) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "vm-0"}, Status: corev1.NodeStatus{Addresses: addrs}}
}

func TestHostname(t *testing.T) {
	m := machine("ns", "vm-0", nil)
	if got := Hostname(m); got != "vm-0" {
		t.Errorf("Hostname without spec.hostname = %q, want the object's name", got)
	}
	m.Spec.Hostname = "worker-a"
	if got := Hostname(m); got != "worker-a" {
		t.Errorf("Hostname = %q, want spec.hostname", got)
	}
}

func TestDevices(t *testing.T) {
	tests := []struct {
		name     string
		devices  []infrav1.NetworkDevice
		want     []readiness.Device
		problems []string // Problem.Error() of each problem
		is       []error  // the sentinel each problem wraps
	}{
		{name: "none"},
		{
			name: "every type, MACs in any form, static with and without prefix length",
			devices: []infrav1.NetworkDevice{
				device("IPV4_DHCP", "52-54-00-12-34-56"),
				device("IPV4", "5254.0012.3457", "192.0.2.10/32", "192.0.2.11"),
				device("NONE", ""),
				device("IPV6_DHCP", "", "10.9.0.1"),
				device("IPV4V6_DHCP", ""),
			},
			want: []readiness.Device{
				{MAC: mac0, DHCP4: true},
				{MAC: mac1, Static: mustAddrs("192.0.2.10", "192.0.2.11")},
				{},
				{DHCP6: true, Static: mustAddrs("10.9.0.1")},
				{DHCP4: true, DHCP6: true},
			},
		},
		{
			name:    "one bad device invalidates the spec",
			devices: []infrav1.NetworkDevice{device("IPV4_DHCP", mac0), device("ipv4_dhcp", mac1)},
			problems: []string{
				`nic 1: readiness: parse device type "ipv4_dhcp": unknown device type (want one of NONE, IPV4, IPV6, IPV4V6, IPV4_DHCP, IPV6_DHCP, IPV4V6_DHCP)`,
			},
			is: []error{readiness.ErrUnknownType},
		},
		{
			name: "every bad device is reported, in device order",
			devices: []infrav1.NetworkDevice{
				device("IPV4", mac0, "10.0.0.300"),
				device("IPV4_DHCP", "52:54:00"),
				device("NONE", "", "10.0.0.1"),
				device("IPV4", ""),
			},
			problems: []string{
				`nic 0: readiness: parse static address "10.0.0.300": invalid static address: ParseAddr("10.0.0.300"): IPv4 field has value >255`,
				`nic 1: readiness: parse device MAC "52:54:00": invalid MAC address`,
				`nic 2: readiness: parse device NONE static address "10.0.0.1": static address not allowed by the device type`,
				`nic 3: readiness: parse device IPV4: static address missing: no IPv4 address`,
			},
			is: []error{readiness.ErrInvalidStatic, readiness.ErrInvalidMAC, readiness.ErrStaticNotAllowed, readiness.ErrMissingStatic},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := Devices(infrav1.NetworkSpec{Devices: tt.devices})
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateComparable(netip.Addr{})); len(tt.problems) == 0 && diff != "" {
				t.Errorf("Devices (-want +got):\n%s", diff)
			}
			if len(tt.problems) > 0 && got != nil {
				t.Errorf("Devices of an invalid spec = %v, want nil", got)
			}
			var texts []string
			for i, p := range problems {
				texts = append(texts, p.Error())
				if i < len(tt.is) && !errors.Is(p, tt.is[i]) {
					t.Errorf("problem %d = %v, want it to wrap %v", i, p, tt.is[i])
				}
			}
			if diff := cmp.Diff(tt.problems, texts); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReportedNICs(t *testing.T) {
	tests := []struct {
		name     string
		reported []infrav1.NICStatus
		want     []readiness.NIC
	}{
		{name: "none"},
		{
			name:     "addresses with or without prefix length, unusable ones kept for readiness to judge",
			reported: []infrav1.NICStatus{nic(mac0, "10.0.0.5/24", "fe80::1%eth0", "127.0.0.1"), nic("", "2001:db8::5")},
			want: []readiness.NIC{
				{MAC: mac0, Addrs: mustAddrs("10.0.0.5", "fe80::1%eth0", "127.0.0.1")},
				{Addrs: mustAddrs("2001:db8::5")},
			},
		},
		{
			name:     "what does not parse is dropped, the NIC stays in place",
			reported: []infrav1.NICStatus{nic(mac0, "not-an-ip", "10.0.0.5/40", ""), nic(mac1, "10.1.0.5")},
			want:     []readiness.NIC{{MAC: mac0}, {MAC: mac1, Addrs: mustAddrs("10.1.0.5")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReportedNICs(tt.reported)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateComparable(netip.Addr{})); diff != "" {
				t.Errorf("ReportedNICs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodeAddrs(t *testing.T) {
	tests := []struct {
		name string
		node *corev1.Node
		want []netip.Addr
	}{
		{name: "no node"},
		{name: "no addresses", node: nodeWith()},
		{
			name: "InternalIP first, then ExternalIP, each in the Node's order; names and garbage skipped",
			node: nodeWith(
				corev1.NodeAddress{Type: corev1.NodeHostName, Address: "vm-0"},
				corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "198.51.100.7"},
				corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.5"},
				corev1.NodeAddress{Type: corev1.NodeInternalDNS, Address: "vm-0.cluster.local"},
				corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "2001:db8::5"},
				corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.999"},
				corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "2001:db8:1::7"},
			),
			want: mustAddrs("10.0.0.5", "2001:db8::5", "198.51.100.7", "2001:db8:1::7"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NodeAddrs(tt.node)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateComparable(netip.Addr{})); diff != "" {
				t.Errorf("NodeAddrs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestObserveConfigurations runs the five configurations through the pure
// translation: spec strings and reported strings in, verdict out.
func TestObserveConfigurations(t *testing.T) {
	for _, c := range configurations {
		for _, phase := range []struct {
			name string
			obs  observation
		}{{"pending", c.pending}, {"ready", c.ready}} {
			t.Run(c.name+"/"+phase.name, func(t *testing.T) {
				m := machine("ns", "vm-0", c.devices)
				node := nodeWith()
				for _, a := range phase.obs.nodeAddrs {
					node.Status.Addresses = append(node.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: a})
				}
				v := Observe(m, ReportedNICs(phase.obs.nics), NodeAddrs(node), nil, readiness.Strict)
				wantReason := readiness.ReasonWaitingForNetworkAddresses
				if phase.obs.wantReady {
					wantReason = ""
				}
				type summary struct {
					Ready           bool
					Reason, Message string
					Addresses       []string
				}
				got := summary{v.Ready, v.Reason, v.Message, nil}
				for _, a := range v.Addresses {
					got.Addresses = append(got.Addresses, a.String())
				}
				want := summary{phase.obs.wantReady, wantReason, phase.obs.wantMessage, phase.obs.wantAddrs}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Observe (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestObserveInvalidSpec(t *testing.T) {
	tests := []struct {
		name     string
		devices  []infrav1.NetworkDevice
		policies []readiness.Policy
		message  string
	}{
		{
			name:     "a device that does not parse",
			devices:  []infrav1.NetworkDevice{device("IPV4_DHCP", mac0), device("DHCP", mac1)},
			policies: []readiness.Policy{readiness.Strict, readiness.Counting},
			message:  `nic 1: readiness: parse device type "DHCP": unknown device type (want one of NONE, IPV4, IPV6, IPV4V6, IPV4_DHCP, IPV6_DHCP, IPV4V6_DHCP)`,
		},
		{
			// Counting, the legacy rule, does not check the spec.
			name:     "devices that parse but clash, caught by readiness.Evaluate under Strict",
			devices:  []infrav1.NetworkDevice{device("IPV4_DHCP", mac0), device("IPV4_DHCP", strings.ToUpper(mac0))},
			policies: []readiness.Policy{readiness.Strict},
			message:  "nic 1: MAC 52:54:00:12:34:56: duplicate MAC address (nic 0 has it too)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := machine("ns", "vm-0", tt.devices)
			nics := ReportedNICs([]infrav1.NICStatus{nic(mac0, "10.0.0.5"), nic(mac1, "10.1.0.5")})
			for _, p := range tt.policies {
				v := Observe(m, nics, nil, nil, p)
				if v.Ready || v.Reason != readiness.ReasonInvalidNetworkSpec || len(v.Problems) == 0 {
					t.Fatalf("%v: Observe = ready %v reason %q problems %v, want not ready, InvalidNetworkSpec, problems", p, v.Ready, v.Reason, v.Problems)
				}
				if tt.message != "" && v.Message != tt.message {
					t.Errorf("%v: message = %q, want %q", p, v.Message, tt.message)
				}
			}
		})
	}
}

func TestMachineAddresses(t *testing.T) {
	v := readiness.Verdict{Addresses: mustAddrs("10.0.0.5", "192.0.2.10", "2001:db8::5")}
	want := []infrav1.MachineAddress{
		{Type: infrav1.MachineHostName, Address: "vm-0"},
		{Type: infrav1.MachineInternalIP, Address: "10.0.0.5"},
		{Type: infrav1.MachineInternalIP, Address: "192.0.2.10"},
		{Type: infrav1.MachineInternalIP, Address: "2001:db8::5"},
	}
	if diff := cmp.Diff(want, MachineAddresses("vm-0", v)); diff != "" {
		t.Errorf("MachineAddresses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1:], MachineAddresses("", v)); diff != "" {
		t.Errorf("MachineAddresses without hostname (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]infrav1.MachineAddress{}, MachineAddresses("", readiness.Verdict{})); diff != "" {
		t.Errorf("MachineAddresses of nothing (-want +got):\n%s", diff)
	}
}

func TestProvisionedCondition(t *testing.T) {
	tests := []struct {
		name string
		v    readiness.Verdict
		want conditions.Condition
	}{
		{
			name: "ready",
			v:    readiness.Verdict{Ready: true},
			want: conditions.Condition{Type: "VMProvisioned", Status: conditions.ConditionTrue, ObservedGeneration: 3, Reason: "NetworkReady"},
		},
		{
			name: "waiting",
			v:    readiness.Verdict{Reason: readiness.ReasonWaitingForNetworkAddresses, Message: "nic 0 (52:54:00:12:34:56): waiting for dhcp4"},
			want: conditions.Condition{Type: "VMProvisioned", Status: conditions.ConditionFalse, ObservedGeneration: 3, Reason: "WaitingForNetworkAddresses", Message: "nic 0 (52:54:00:12:34:56): waiting for dhcp4"},
		},
		{
			name: "invalid spec",
			v:    readiness.Verdict{Reason: readiness.ReasonInvalidNetworkSpec, Message: "nic 1: duplicate MAC address"},
			want: conditions.Condition{Type: "VMProvisioned", Status: conditions.ConditionFalse, ObservedGeneration: 3, Reason: "InvalidNetworkSpec", Message: "nic 1: duplicate MAC address"},
		},
		{
			name: "not ready without a reason still has one",
			v:    readiness.Verdict{},
			want: conditions.Condition{Type: "VMProvisioned", Status: conditions.ConditionFalse, ObservedGeneration: 3, Reason: "WaitingForNetworkAddresses"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ProvisionedCondition(tt.v, 3)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ProvisionedCondition (-want +got):\n%s", diff)
			}
			got.LastTransitionTime = time.Unix(1, 0)
			if err := conditions.Validate(got); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

// A spec with huge bad values gives a huge message; the condition must still
// be one the API server accepts.
func TestProvisionedConditionLongMessage(t *testing.T) {
	long := strings.Repeat("é", conditions.MaxMessageLength) // 2 bytes each
	c := ProvisionedCondition(readiness.Verdict{Reason: readiness.ReasonInvalidNetworkSpec, Message: long}, 1)
	c.LastTransitionTime = time.Unix(1, 0)
	if err := conditions.Validate(c); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if want := strings.Repeat("é", conditions.MaxMessageLength/2); c.Message != want {
		t.Errorf("message not cut to %d bytes on a rune boundary: ...%q", conditions.MaxMessageLength, c.Message[len(c.Message)-10:])
	}
}

// A spec value with invalid UTF-8 gives a message that the API server's JSON
// stores unchanged, so the next observation compares equal and writes nothing.
func TestProvisionedConditionMessageSurvivesJSON(t *testing.T) {
	c := ProvisionedCondition(readiness.Verdict{Reason: readiness.ReasonInvalidNetworkSpec, Message: "nic 0: bad \xff mac"}, 1)
	b, err := json.Marshal(c.Message)
	if err != nil {
		t.Fatal(err)
	}
	var back string
	if err := json.Unmarshal(b, &back); err != nil || back != c.Message {
		t.Fatalf("message %q came back from JSON as %q (%v)", c.Message, back, err)
	}
}

func TestApplyVerdict(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	t1 := t0.Add(90*time.Second + 400*time.Millisecond)
	pending := readiness.Verdict{Reason: readiness.ReasonWaitingForNetworkAddresses, Message: "nic 1 (52:54:00:12:34:57): waiting for dhcp4", Addresses: mustAddrs("10.0.0.5")}
	pendingOther := readiness.Verdict{Reason: readiness.ReasonWaitingForNetworkAddresses, Message: "nic 0 (52:54:00:12:34:56): waiting for dhcp4", Addresses: mustAddrs("10.1.0.5")}
	ready := readiness.Verdict{Ready: true, Addresses: mustAddrs("10.0.0.5", "10.1.0.5")}

	cond := func(st conditions.Status, gen int64, at time.Time, reason, msg string) []metav1.Condition {
		return kube.ToMeta([]conditions.Condition{{Type: "VMProvisioned", Status: st, ObservedGeneration: gen, LastTransitionTime: at, Reason: reason, Message: msg}})
	}
	pendingStatus := infrav1.VMMachineStatus{
		Network:    []infrav1.NICStatus{nic(mac0, "10.0.0.5"), nic(mac1)},
		Addresses:  wantAddresses("vm-0", []string{"10.0.0.5"}),
		Conditions: cond(conditions.ConditionFalse, 1, t0, "WaitingForNetworkAddresses", pending.Message),
	}

	tests := []struct {
		name        string
		status      infrav1.VMMachineStatus
		generation  int64
		v           readiness.Verdict
		want        infrav1.VMMachineStatus
		wantChanged bool
	}{
		{
			name:        "first observation adds the condition at now, in whole seconds",
			status:      infrav1.VMMachineStatus{Network: pendingStatus.Network},
			generation:  1,
			v:           pending,
			want:        infrav1.VMMachineStatus{Network: pendingStatus.Network, Addresses: pendingStatus.Addresses, Conditions: cond(conditions.ConditionFalse, 1, t1.Truncate(time.Second), "WaitingForNetworkAddresses", pending.Message)},
			wantChanged: true,
		},
		{
			name:       "same verdict again: nothing to write, time kept",
			status:     pendingStatus,
			generation: 1,
			v:          pending,
			want:       pendingStatus,
		},
		{
			name:        "other pending device and address: changed, time kept",
			status:      pendingStatus,
			generation:  1,
			v:           pendingOther,
			want:        infrav1.VMMachineStatus{Network: pendingStatus.Network, Addresses: wantAddresses("vm-0", []string{"10.1.0.5"}), Conditions: cond(conditions.ConditionFalse, 1, t0, "WaitingForNetworkAddresses", pendingOther.Message)},
			wantChanged: true,
		},
		{
			name:        "new generation only: changed, time kept",
			status:      pendingStatus,
			generation:  2,
			v:           pending,
			want:        infrav1.VMMachineStatus{Network: pendingStatus.Network, Addresses: pendingStatus.Addresses, Conditions: cond(conditions.ConditionFalse, 2, t0, "WaitingForNetworkAddresses", pending.Message)},
			wantChanged: true,
		},
		{
			name:        "addresses only: changed",
			status:      infrav1.VMMachineStatus{Conditions: pendingStatus.Conditions},
			generation:  1,
			v:           pending,
			want:        infrav1.VMMachineStatus{Addresses: pendingStatus.Addresses, Conditions: pendingStatus.Conditions},
			wantChanged: true,
		},
		{
			name:        "ready: the transition time moves",
			status:      pendingStatus,
			generation:  1,
			v:           ready,
			want:        infrav1.VMMachineStatus{Network: pendingStatus.Network, Addresses: wantAddresses("vm-0", []string{"10.0.0.5", "10.1.0.5"}), Conditions: cond(conditions.ConditionTrue, 1, t1.Truncate(time.Second), "NetworkReady", "")},
			wantChanged: true,
		},
		{
			name: "other conditions are kept in place",
			status: infrav1.VMMachineStatus{
				Addresses:  pendingStatus.Addresses,
				Conditions: append(kube.ToMeta([]conditions.Condition{{Type: "Paused", Status: conditions.ConditionFalse, LastTransitionTime: t0, Reason: "NotPaused"}}), pendingStatus.Conditions...),
			},
			generation: 1,
			v:          pending,
			want: infrav1.VMMachineStatus{
				Addresses:  pendingStatus.Addresses,
				Conditions: append(kube.ToMeta([]conditions.Condition{{Type: "Paused", Status: conditions.ConditionFalse, LastTransitionTime: t0, Reason: "NotPaused"}}), pendingStatus.Conditions...),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.status.DeepCopy()
			got, changed := ApplyVerdict(tt.status, "vm-0", tt.generation, tt.v, t1)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tt.wantChanged)
			}
			if diff := cmp.Diff(before, &tt.status); diff != "" {
				t.Errorf("ApplyVerdict modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

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
			{Type: typ, MACAddress: mac, IPAddresses: netiptest.SplitList(static)},
			{Type: "IPV4_DHCP"},
		})
		m.Status.Network = []infrav1.NICStatus{{MACAddress: nicMAC, IPAddresses: netiptest.SplitList(nicAddrs)}}
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
		c, ok := kube.FindMeta(status.Conditions, ConditionVMProvisioned)
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
