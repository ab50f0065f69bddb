package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReadyType is the type of VMNetworkConfig's condition that turns True once
// every NIC has its address.
const ReadyType = "Ready"

// NetworkReadyType is the type of the condition the VirtualMachine
// controller sets on the VMNetworkConfigs it generates: True once the
// running instance reports a usable address on every NIC served by a pool
// (readiness.Evaluate, every such NIC a DHCP device), with the verdict's
// reason and message; False while it does not, or while the VM has no
// running instance.
const NetworkReadyType = "NetworkReady"

// NIC is one network interface of a VM that needs an address.
type NIC struct {
	// Name is the NIC's name on its VM, such as a KubeVirt interface name;
	// optional, and not used to allocate. The VirtualMachine controller
	// sets it so that a NIC's address follows its name when its MAC
	// changes.
	// +optional
	Name string `json:"name,omitempty"`

	// MAC is the interface's hardware address, such as 52:54:00:aa:bb:cc.
	// +kubebuilder:validation:MinLength=1
	MAC string `json:"mac"`

	// Pool is the name of the IPPool, in the claim's namespace, to take the
	// address from.
	// +kubebuilder:validation:MinLength=1
	Pool string `json:"pool"`

	// Address asks for this address rather than the pool's next free one.
	// +optional
	Address string `json:"address,omitempty"`
}

// VMNetworkConfigSpec lists a VM's NICs.
type VMNetworkConfigSpec struct {
	// NICs lists the interfaces that need an address, at most one per MAC
	// and pool.
	// +kubebuilder:validation:MinItems=1
	// +listType=atomic
	NICs []NIC `json:"nics"`
}

// NICStatus is the address given to one NIC.
type NICStatus struct {
	// MAC is the interface's hardware address in lowercase colon form.
	MAC string `json:"mac"`

	// Pool is the IPPool the address comes from.
	Pool string `json:"pool"`

	// Address is the address given to the NIC: the IPv4 one when the pool
	// is dual-stack (it has spec.ipv6).
	Address string `json:"address"`

	// IPv6Address is the address given to the NIC from the pool's IPv6 part
	// (spec.ipv6), after Address. Empty when the pool has no IPv6 part, or
	// while that part is exhausted: then the NIC keeps its IPv4 Address and
	// the claim's Ready condition is False with reason IPv6Exhausted.
	// +optional
	IPv6Address string `json:"ipv6Address,omitempty"`
}

// VMNetworkConfigStatus reports the addresses given to the VM's NICs.
type VMNetworkConfigStatus struct {
	// NICs holds one entry per NIC that has its address, in spec order.
	// +listType=atomic
	// +optional
	NICs []NICStatus `json:"nics,omitempty"`

	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions holds Ready, and NetworkReady on a config generated from
	// a KubeVirt VirtualMachine.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// VMNetworkConfig is one VM's claim on addresses from IPPools.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=vmnc
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type VMNetworkConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   VMNetworkConfigSpec   `json:"spec,omitempty"`
	Status VMNetworkConfigStatus `json:"status,omitempty"`
}

// VMNetworkConfigList is a list of VMNetworkConfigs.
//
// +kubebuilder:object:root=true
type VMNetworkConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []VMNetworkConfig `json:"items"`
}

func init() {
	SchemeBuilder.Register(&VMNetworkConfig{}, &VMNetworkConfigList{})
}
