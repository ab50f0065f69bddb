package kubevirt

// InstanceSpec is the part of a VirtualMachineInstance's spec (and of a
// VirtualMachine's template) the operator reads: the interfaces and the
// networks they attach to, matched by name.
type InstanceSpec struct {
	// Domain holds the devices.
	// +optional
	Domain Domain `json:"domain"`

	// Networks are the networks the interfaces attach to.
	// +optional
	Networks []Network `json:"networks,omitempty"`
}

// Domain is the domain's part the operator reads.
type Domain struct {
	// +optional
	Devices Devices `json:"devices"`
}

// Devices holds the interfaces.
type Devices struct {
	// +optional
	Interfaces []Interface `json:"interfaces,omitempty"`
}

// InterfaceStateAbsent is the state of an interface being unplugged: it
// stays in the spec until KubeVirt has removed it from the instance.
const InterfaceStateAbsent = "absent"

// Interface is one network interface of the VM, named like its Network.
type Interface struct {
	// Name identifies the interface and its network.
	Name string `json:"name"`

	// MacAddress is the MAC asked for, in any spelling KubeVirt accepts;
	// empty lets KubeVirt's network binding choose one, which the running
	// instance then reports.
	// +optional
	MacAddress string `json:"macAddress,omitempty"`

	// State is "absent" for an interface being unplugged ("up", "down" or
	// empty otherwise).
	// +optional
	State string `json:"state,omitempty"`
}

// Network is one network of the VM. Only Multus networks are read; a pod
// network (or any other) has Multus nil.
type Network struct {
	// Name is the name of the interface that attaches to it.
	Name string `json:"name"`

	// Multus names the NetworkAttachmentDefinition.
	// +optional
	Multus *MultusNetwork `json:"multus,omitempty"`
}

// MultusNetwork names a Multus NetworkAttachmentDefinition.
type MultusNetwork struct {
	// NetworkName is "namespace/name", or "name" in the VM's namespace (as
	// KubeVirt reads it).
	NetworkName string `json:"networkName"`
}
