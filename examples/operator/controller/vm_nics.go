package controller

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// vmView is what vmNICs decides from: the VM, its running instance (nil
// when none), the IPPools by network (poolsByNetwork, of every namespace),
// the addresses asked for per interface name (the VM's annotation), and the
// config generated before (nil when none).
type vmView struct {
	vm     *kubevirt.VirtualMachine
	vmi    *kubevirt.VirtualMachineInstance
	pools  map[string][]*v1alpha1.IPPool
	static map[string]string
	prev   *v1alpha1.VMNetworkConfig
}

// skippedNIC is an interface that gets no NIC, and why (an Event's
// reason and message). Interfaces waiting for their MAC are not listed:
// that resolves itself as soon as the instance reports it.
type skippedNIC struct {
	Reason, Message string
}

// Why an interface on a Multus network gets no NIC.
const (
	// ReasonNetworkNotServed: no IPPool in the VM's namespace serves the
	// interface's network.
	ReasonNetworkNotServed = "NetworkNotServed"
	// ReasonNetworkConflict: more than one IPPool names the network.
	ReasonNetworkConflict = "NetworkConflict"
	// ReasonInvalidMAC: the interface's MAC does not parse.
	ReasonInvalidMAC = "InvalidMAC"
)

// vmNICs returns the NICs of the config generated for v.vm, in the order of
// its interfaces, and the interfaces it leaves out with why. An interface
// gets a NIC when its network is a Multus network that exactly one IPPool,
// in the VM's namespace, serves, and its MAC is known:
//
//  1. the MAC the running instance reports for the interface's name (what
//     is on the wire: a MAC changed in the spec counts once the instance
//     reports it);
//  2. else the spec's macAddress;
//  3. else the MAC the previous config gave the interface's name (a stopped
//     VM, or a new instance that has not reported yet, keeps its address);
//
// and never an invented one. An interface whose network two pools name
// gets no NIC, but keeps the one the previous config gave it. An interface
// in state "absent" keeps its NIC
// while the instance still reports it. The NIC asks for the address of the
// VM's annotation for its name if any; else, when its MAC changed, for the
// address its old MAC held, so that the address follows the name. It does no
// I/O.
func vmNICs(v vmView) (nics []v1alpha1.NIC, skipped []skippedNIC) {
	networks := map[string]kubevirt.Network{}
	for _, n := range v.vm.Networks() {
		networks[n.Name] = n
	}
	reported := map[string]kubevirt.InterfaceStatus{}
	if v.vmi != nil {
		for _, s := range v.vmi.Status.Interfaces {
			if s.Name != "" {
				reported[s.Name] = s
			}
		}
	}
	for _, iface := range v.vm.Interfaces() {
		net, ok := networks[iface.Name]
		if !ok || net.Multus == nil {
			continue // the pod network, or another kind the operator does not serve
		}
		st, running := reported[iface.Name]
		if iface.State == kubevirt.InterfaceStateAbsent && !running {
			continue // unplugged: released once the instance no longer has it
		}
		key := networkKey(v.vm.Namespace, net.Multus.NetworkName)
		pools := v.pools[key]
		switch {
		case len(pools) > 1:
			skipped = append(skipped, skippedNIC{ReasonNetworkConflict,
				fmt.Sprintf("interface %s: network %s is claimed by %d IPPools (%s): none serves it", iface.Name, key, len(pools), poolNames(pools))})
			// A second pool named by mistake takes no address away: a NIC
			// served before the conflict keeps its pool.
			if prev, ok := prevNIC(v.prev, iface.Name); ok && hasPool(pools, v.vm.Namespace, prev.Pool) {
				nics = append(nics, prev)
			}
			continue
		case len(pools) == 0 || pools[0].Namespace != v.vm.Namespace:
			skipped = append(skipped, skippedNIC{ReasonNetworkNotServed,
				fmt.Sprintf("interface %s: no IPPool in namespace %s serves network %s", iface.Name, v.vm.Namespace, key)})
			continue
		}
		prev, hadPrev := prevNIC(v.prev, iface.Name)
		mac := cmp.Or(st.MAC, iface.MacAddress)
		if mac == "" && hadPrev {
			mac = prev.MAC
		}
		if mac == "" {
			continue // waiting for the instance to report it
		}
		canon, err := ipam.MACOwners.Canonical(mac)
		if err != nil {
			skipped = append(skipped, skippedNIC{ReasonInvalidMAC, fmt.Sprintf("interface %s: MAC %q: %v", iface.Name, mac, err)})
			continue
		}
		n := v1alpha1.NIC{Name: iface.Name, MAC: canon, Pool: pools[0].Name, Address: v.static[iface.Name]}
		if n.Address == "" && hadPrev {
			n.Address = followAddress(v.prev, prev, n)
		}
		nics = append(nics, n)
	}
	return nics, skipped
}

// prevNIC returns the NIC named name of the previous config.
func prevNIC(prev *v1alpha1.VMNetworkConfig, name string) (v1alpha1.NIC, bool) {
	if prev == nil {
		return v1alpha1.NIC{}, false
	}
	for _, n := range prev.Spec.NICs {
		if n.Name == name {
			return n, true
		}
	}
	return v1alpha1.NIC{}, false
}

// followAddress returns the address NIC n asks for, given the NIC of the
// same name in the previous config: the address the previous NIC's MAC
// holds on the same pool (its MAC changed: the address follows the name),
// else the address the previous NIC asked for if its MAC holds it (no
// change), else none.
func followAddress(prevConfig *v1alpha1.VMNetworkConfig, prev, n v1alpha1.NIC) string {
	if prev.Pool != n.Pool {
		return ""
	}
	held := ""
	for _, s := range prevConfig.Status.NICs {
		if s.MAC == prev.MAC && s.Pool == prev.Pool {
			held = s.Address
		}
	}
	if prev.MAC != n.MAC {
		return held
	}
	if prev.Address != "" && prev.Address == held {
		return prev.Address
	}
	return ""
}

// hasPool reports whether pools holds pool name of namespace ns.
func hasPool(pools []*v1alpha1.IPPool, ns, name string) bool {
	for _, p := range pools {
		if p.Namespace == ns && p.Name == name {
			return true
		}
	}
	return false
}

// poolNames returns the pools' "namespace/name"s, sorted: a message built
// from it is the same whatever the informer's order, so that the recorder
// merges repeated Events into one.
func poolNames(pools []*v1alpha1.IPPool) string {
	names := make([]string, len(pools))
	for i, p := range pools {
		names[i] = p.Namespace + "/" + p.Name
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
