package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VMMachine is a Cluster API style infrastructure machine: the VM's desired
// network devices in its spec, and in its status what the hypervisor reports
// and what the adapter decided.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Provisioned",type=string,JSONPath=`.status.conditions[?(@.type=="VMProvisioned")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="VMProvisioned")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type VMMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   VMMachineSpec   `json:"spec,omitempty"`
	Status VMMachineStatus `json:"status,omitempty"`
}

// VMMachineList is a list of VMMachines.
//
// +kubebuilder:object:root=true
type VMMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []VMMachine `json:"items"`
}

func init() {
	SchemeBuilder.Register(&VMMachine{}, &VMMachineList{})
}

// VMMachineSpec is the desired state of a VM.
type VMMachineSpec struct {
	// Hostname is the guest's hostname, which is also the name of the
	// Kubernetes Node the guest registers. Empty means the object's name.
	// +optional
	Hostname string `json:"hostname,omitempty"`

	// Network holds the VM's network devices.
	// +optional
	Network NetworkSpec `json:"network,omitempty"`
}

// NetworkSpec holds the VM's network devices in the order the hypervisor
// attaches them.
type NetworkSpec struct {
	// Devices are the desired NICs, in the order the hypervisor attaches
	// them.
	// +listType=atomic
	// +optional
	Devices []NetworkDevice `json:"devices,omitempty"`
}

// NetworkDevice is one desired NIC.
type NetworkDevice struct {
	// Type is how the NIC gets its addresses: IPV4_DHCP, IPV4 (static),
	// NONE, or a DHCPv6 form (see readiness.ParseDevice). The adapter checks
	// it, not the API server, so a bad value shows as the VMProvisioned
	// reason InvalidNetworkSpec.
	Type string `json:"type"`

	// MACAddress is optional; without it the NIC is matched by position.
	// +optional
	MACAddress string `json:"macAddress,omitempty"`

	// IPAddresses are the static addresses, as "10.1.1.1" or "10.1.1.1/24".
	// +listType=atomic
	// +optional
	IPAddresses []string `json:"ipAddresses,omitempty"`
}

// VMMachineStatus is what the hypervisor reports (Network) and what the
// adapter decided (Addresses, Conditions).
type VMMachineStatus struct {
	// Network is the NICs as the hypervisor reports them, written by the
	// hypervisor sync; the adapter only reads it.
	// +listType=atomic
	// +optional
	Network []NICStatus `json:"network,omitempty"`

	// Addresses are the machine's addresses as Cluster API reads them: the
	// hostname, then every address the readiness verdict credited.
	// +listType=atomic
	// +optional
	Addresses []MachineAddress `json:"addresses,omitempty"`

	// Conditions holds VMProvisioned. They are metav1.Conditions, so the API
	// server checks them as it checks every condition; the adapter computes
	// them with the core's conditions package through the kube module.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// NICStatus is one NIC as the hypervisor reports it.
type NICStatus struct {
	// MACAddress is the NIC's hardware address.
	// +optional
	MACAddress string `json:"macAddress,omitempty"`

	// IPAddresses are the addresses the hypervisor sees on the NIC, with or
	// without a prefix length.
	// +listType=atomic
	// +optional
	IPAddresses []string `json:"ipAddresses,omitempty"`
}

// MachineAddressType is the kind of a [MachineAddress], with the values of
// Cluster API's type of the same name.
//
// +kubebuilder:validation:Enum=Hostname;ExternalIP;InternalIP;ExternalDNS;InternalDNS
type MachineAddressType string

// The address types Cluster API knows.
const (
	MachineHostName    MachineAddressType = "Hostname"
	MachineExternalIP  MachineAddressType = "ExternalIP"
	MachineInternalIP  MachineAddressType = "InternalIP"
	MachineExternalDNS MachineAddressType = "ExternalDNS"
	MachineInternalDNS MachineAddressType = "InternalDNS"
)

// MachineAddress is one address of a machine, shaped like Cluster API's
// MachineAddress so a provider copies it field by field.
type MachineAddress struct {
	// Type is the kind of address.
	Type MachineAddressType `json:"type"`

	// Address is the address itself: a hostname or an IP address.
	Address string `json:"address"`
}
