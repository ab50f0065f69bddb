package provider

import (
	"net/netip"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// ConditionVMProvisioned is the condition the adapter writes: True once the
// machine's network is ready.
const ConditionVMProvisioned = "VMProvisioned"

// ReasonNetworkReady is VMProvisioned's reason when it is True (the verdict
// has no reason then, and the API server wants one).
const ReasonNetworkReady = "NetworkReady"

// Hostname is the machine's hostname, which is also its Node's name:
// spec.hostname, or the object's name when that is empty.
func Hostname(m *infrav1.VMMachine) string {
	if m.Spec.Hostname != "" {
		return m.Spec.Hostname
	}
	return m.Name
}

// Devices parses the spec's devices into the values [readiness.Evaluate]
// reads, in spec order. A device that does not parse (an unknown type, a
// bad MAC or static address) makes the whole spec invalid: Devices then
// returns nil and one [readiness.Problem] per bad device, in device order.
func Devices(spec infrav1.NetworkSpec) ([]readiness.Device, []readiness.Problem) {
	var devs []readiness.Device
	var problems []readiness.Problem
	for i, d := range spec.Devices {
		dev, err := readiness.ParseDevice(d.Type, d.MACAddress, d.IPAddresses)
		if err != nil {
			problems = append(problems, readiness.Problem{Device: i, Err: err})
			continue
		}
		devs = append(devs, dev)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return devs, nil
}

// ReportedNICs translates the NICs the hypervisor reports, in its order.
// Addresses are read by [readiness.ParseReported] ("10.0.0.5",
// "10.0.0.5/24", "fe80::1%eth0") and passed on whatever they are
// (link-local, loopback...): [readiness.Evaluate] decides what counts and
// lists the rest as ignored. One that does not parse is dropped, since it
// could never count.
func ReportedNICs(reported []infrav1.NICStatus) []readiness.NIC {
	if len(reported) == 0 {
		return nil
	}
	nics := make([]readiness.NIC, len(reported))
	for i, r := range reported {
		nics[i].MAC = r.MACAddress
		for _, s := range r.IPAddresses {
			if a, err := readiness.ParseReported(s); err == nil {
				nics[i].Addrs = append(nics[i].Addrs, a)
			}
		}
	}
	return nics
}

// NodeAddrs returns the IP addresses of a Node's status: InternalIP ones
// first, then ExternalIP ones, each in the Node's order (the Counting policy
// credits the first one). Hostname and DNS entries are not addresses and
// are skipped, as is anything that does not parse. A nil Node has none.
func NodeAddrs(node *corev1.Node) []netip.Addr {
	if node == nil {
		return nil
	}
	var addrs []netip.Addr
	for _, typ := range []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeExternalIP} {
		for _, na := range node.Status.Addresses {
			if na.Type != typ {
				continue
			}
			if a, err := netip.ParseAddr(na.Address); err == nil {
				addrs = append(addrs, a)
			}
		}
	}
	return addrs
}

// Observe decides the machine's network readiness from its spec, the NICs
// the hypervisor reports and its Node's addresses. A spec whose devices do
// not parse gives [readiness.InvalidVerdict] of its problems.
func Observe(m *infrav1.VMMachine, nics []readiness.NIC, nodeAddrs []netip.Addr, ignore []netip.Prefix, p readiness.Policy) readiness.Verdict {
	devs, problems := Devices(m.Spec.Network)
	if len(problems) > 0 {
		return readiness.InvalidVerdict(problems)
	}
	return readiness.Evaluate(readiness.Input{Devices: devs, NICs: nics, NodeAddrs: nodeAddrs, Ignore: ignore}, p)
}

// MachineAddresses is status.addresses for a verdict: the hostname (when
// not empty), then every credited address as InternalIP, in the verdict's
// order. Addresses are published as they are credited, before the machine
// is ready.
func MachineAddresses(hostname string, v readiness.Verdict) []infrav1.MachineAddress {
	addrs := make([]infrav1.MachineAddress, 0, 1+len(v.Addresses))
	if hostname != "" {
		addrs = append(addrs, infrav1.MachineAddress{Type: infrav1.MachineHostName, Address: hostname})
	}
	for _, a := range v.Addresses {
		addrs = append(addrs, infrav1.MachineAddress{Type: infrav1.MachineInternalIP, Address: a.String()})
	}
	return addrs
}

// ProvisionedCondition is the VMProvisioned condition for a verdict: True
// with reason [ReasonNetworkReady] when ready, else False with the verdict's
// reason and message made publishable ([conditions.PublishableMessage]: a
// spec with huge or invalid-UTF-8 bad values must not make the status write
// fail, nor change in the API server's JSON).
// LastTransitionTime is left for [kube.SetMeta].
func ProvisionedCondition(v readiness.Verdict, generation int64) conditions.Condition {
	c := conditions.Condition{
		Type:               ConditionVMProvisioned,
		Status:             conditions.ConditionFalse,
		ObservedGeneration: generation,
		Reason:             v.Reason,
		Message:            conditions.PublishableMessage(v.Message),
	}
	if v.Ready {
		c.Status, c.Reason = conditions.ConditionTrue, ReasonNetworkReady
	}
	if c.Reason == "" {
		c.Reason = readiness.ReasonWaitingForNetworkAddresses
	}
	return c
}

// ApplyVerdict returns status with the verdict's addresses and
// VMProvisioned condition, and whether that differs from status: false
// means there is nothing to write. The condition is set with
// [kube.SetMeta] ([conditions.Set] on the API's conditions): the
// transition time moves to now, in whole seconds, only when the condition's
// status changes. status is not modified.
func ApplyVerdict(status infrav1.VMMachineStatus, hostname string, generation int64, v readiness.Verdict, now time.Time) (infrav1.VMMachineStatus, bool) {
	var out infrav1.VMMachineStatus
	status.DeepCopyInto(&out)
	var condChanged bool
	out.Conditions, condChanged = kube.SetMeta(out.Conditions, ProvisionedCondition(v, generation), now)
	addrs := MachineAddresses(hostname, v)
	addrsChanged := !slices.Equal(addrs, status.Addresses)
	out.Addresses = addrs
	return out, condChanged || addrsChanged
}
