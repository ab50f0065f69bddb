package provider

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/conditions"
)

// VMMachine is a Cluster API style infrastructure machine: the VM's desired
// network devices in its spec, and in its status what the hypervisor reports
// and what the adapter decided.
type VMMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   VMMachineSpec   `json:"spec,omitempty"`
	Status VMMachineStatus `json:"status,omitempty"`
}

// VMMachineList is a list of VMMachines.
type VMMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []VMMachine `json:"items"`
}

// VMMachineSpec is the desired state of a VM.
type VMMachineSpec struct {
	// Hostname is the guest's hostname, which is also the name of the
	// Kubernetes Node the guest registers. Empty means the object's name.
	Hostname string `json:"hostname,omitempty"`

	// Network holds the VM's network devices.
	Network NetworkSpec `json:"network,omitempty"`
}

// NetworkSpec holds the VM's network devices in the order the hypervisor
// attaches them.
type NetworkSpec struct {
	Devices []NetworkDevice `json:"devices,omitempty"`
}

// NetworkDevice is one desired NIC.
type NetworkDevice struct {
	// Type is how the NIC gets its addresses: IPV4_DHCP, IPV4 (static),
	// NONE, or a DHCPv6 form; see [readiness.ParseDevice].
	Type string `json:"type"`

	// MACAddress is optional; without it the NIC is matched by position.
	MACAddress string `json:"macAddress,omitempty"`

	// IPAddresses are the static addresses, as "10.1.1.1" or "10.1.1.1/24".
	IPAddresses []string `json:"ipAddresses,omitempty"`
}

// VMMachineStatus is what the hypervisor reports (Network) and what the
// adapter decided (Addresses, Conditions).
type VMMachineStatus struct {
	// Network is the NICs as the hypervisor reports them, written by the
	// hypervisor sync; the adapter only reads it.
	Network []NICStatus `json:"network,omitempty"`

	// Addresses are the machine's addresses as Cluster API reads them: the
	// hostname, then every address the readiness verdict credited.
	Addresses []MachineAddress `json:"addresses,omitempty"`

	// Conditions holds VMProvisioned.
	Conditions []conditions.Condition `json:"conditions,omitempty"`
}

// NICStatus is one NIC as the hypervisor reports it.
type NICStatus struct {
	MACAddress  string   `json:"macAddress,omitempty"`
	IPAddresses []string `json:"ipAddresses,omitempty"`
}

// MachineAddressType is the kind of a [MachineAddress], with the values of
// Cluster API's type of the same name.
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
	Type    MachineAddressType `json:"type"`
	Address string             `json:"address"`
}
