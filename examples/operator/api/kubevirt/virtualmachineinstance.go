package kubevirt

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VirtualMachineInstance is KubeVirt's running instance of a
// VirtualMachine (it has the VM's name), with only its interfaces, networks
// and the interfaces it reports. Read-only: see the package comment.
//
// +kubebuilder:object:root=true
type VirtualMachineInstance struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec InstanceSpec `json:"spec"`
	// +optional
	Status InstanceStatus `json:"status,omitempty"`
}

// InstanceStatus holds what the instance reports of its interfaces.
type InstanceStatus struct {
	// +optional
	Interfaces []InterfaceStatus `json:"interfaces,omitempty"`
}

// InterfaceStatus is one interface as the instance reports it: virt-handler
// from the domain (Name, MAC), the guest agent from inside the guest
// (IP, IPs, InterfaceName).
type InterfaceStatus struct {
	// Name is the interface's name in the VM's spec; empty for an
	// interface only the guest knows.
	// +optional
	Name string `json:"name,omitempty"`

	// MAC is the interface's hardware address.
	// +optional
	MAC string `json:"mac,omitempty"`

	// IP is the interface's first address, as the guest agent reports it.
	// +optional
	IP string `json:"ipAddress,omitempty"`

	// IPs are all its addresses.
	// +optional
	IPs []string `json:"ipAddresses,omitempty"`

	// InterfaceName is the interface's name inside the guest.
	// +optional
	InterfaceName string `json:"interfaceName,omitempty"`
}

// VirtualMachineInstanceList is a list of VirtualMachineInstances.
//
// +kubebuilder:object:root=true
type VirtualMachineInstanceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []VirtualMachineInstance `json:"items"`
}

func init() {
	SchemeBuilder.Register(&VirtualMachineInstance{}, &VirtualMachineInstanceList{})
}
