package controller

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// Reasons of the NetworkReady condition besides readiness's own
// (readiness.ReasonWaitingForNetworkAddresses,
// readiness.ReasonInvalidNetworkSpec).
const (
	// ReasonNetworkReady: every NIC served by a pool has a usable address
	// reported by the running instance.
	ReasonNetworkReady = "NetworkReady"
	// ReasonNotRunning: the VM has no running instance to report addresses.
	ReasonNotRunning = "NotRunning"
)

// networkReady is the NetworkReady condition of cfg, the config generated
// for a VM whose running instance is vmi (nil: none): readiness.Evaluate
// under the Strict policy, with each NIC of cfg's spec a DHCP device of its
// pool's families (pools by name, in cfg's namespace) and the instance's
// status.interfaces as the NICs, each address read with
// readiness.ParseReported (a value that does not parse is left out, and
// named in the message when the verdict is not ready).
func networkReady(cfg *v1alpha1.VMNetworkConfig, vmi *kubevirt.VirtualMachineInstance, pools map[string]*v1alpha1.IPPool) conditions.Condition {
	c := conditions.Condition{Type: v1alpha1.NetworkReadyType, Status: conditions.ConditionFalse, ObservedGeneration: cfg.Generation}
	if vmi == nil {
		c.Reason, c.Message = ReasonNotRunning, "the VM has no running instance"
		return c
	}
	var in readiness.Input
	for _, n := range cfg.Spec.NICs {
		d := readiness.Device{MAC: n.MAC, DHCP4: true}
		if p, ok := pools[n.Pool]; ok {
			v6 := strings.Contains(p.Spec.CIDR, ":")
			d.DHCP4, d.DHCP6 = !v6, v6 || p.Spec.DualStack()
		}
		in.Devices = append(in.Devices, d)
	}
	var unparsed []string
	for _, s := range vmi.Status.Interfaces {
		nic := readiness.NIC{MAC: s.MAC}
		for _, text := range append([]string{s.IP}, s.IPs...) {
			if text == "" {
				continue
			}
			a, err := readiness.ParseReported(text)
			if err != nil {
				unparsed = append(unparsed, err.Error())
				continue
			}
			nic.Addrs = appendNew(nic.Addrs, a)
		}
		in.NICs = append(in.NICs, nic)
	}
	v := readiness.Evaluate(in, readiness.Strict)
	if v.Ready {
		c.Status, c.Reason = conditions.ConditionTrue, ReasonNetworkReady
		c.Message = fmt.Sprintf("%d NICs have a usable address: %s", len(in.Devices), joinAddrs(v.Addresses))
		return c
	}
	c.Reason, c.Message = v.Reason, v.Message
	if len(unparsed) > 0 {
		c.Message += "; left out: " + strings.Join(unparsed, "; ")
	}
	return c
}

// appendNew appends a to addrs unless it is there (ipAddress is also the
// first of ipAddresses).
func appendNew(addrs []netip.Addr, a netip.Addr) []netip.Addr {
	for _, b := range addrs {
		if a == b {
			return addrs
		}
	}
	return append(addrs, a)
}

func joinAddrs(addrs []netip.Addr) string {
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}
