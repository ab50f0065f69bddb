package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Values of IPPoolSpec.Strategy.
const (
	// StrategyLowest hands out the lowest free address (the default).
	StrategyLowest = "Lowest"
	// StrategySequential hands out the next free address after the last one
	// handed out, wrapping at the end of the range.
	StrategySequential = "Sequential"
)

// IPPoolSpec describes one network's addresses and the DHCP options its
// agents serve.
type IPPoolSpec struct {
	// Network is the name of the network the pool serves (for example the
	// bridge or VLAN a DHCP agent listens on). For KubeVirt VMs it names
	// the Multus NetworkAttachmentDefinition the pool serves, as
	// "namespace/name"; an unqualified "name" reads as the pool's own
	// namespace, as KubeVirt reads an unqualified multus.networkName in the
	// VM's. The pool serves the VMs of its own namespace; two pools that
	// name one network are an error on both (their NetworkConflict
	// condition): neither serves a new NIC on it, and NICs served before
	// keep their addresses.
	// +kubebuilder:validation:MinLength=1
	Network string `json:"network"`

	// CIDR is the pool's IPv4 or IPv6 prefix in canonical form, such as
	// 10.0.0.0/24 or fd00:1::/64. In a dual-stack pool (IPv6 set) it is the
	// IPv4 part and must be an IPv4 prefix.
	// +kubebuilder:validation:MinLength=1
	CIDR string `json:"cidr"`

	// RangeStart is the first address handed out; empty means the first
	// usable address of CIDR.
	// +optional
	RangeStart string `json:"rangeStart,omitempty"`

	// RangeEnd is the last address handed out; empty means the last usable
	// address of CIDR.
	// +optional
	RangeEnd string `json:"rangeEnd,omitempty"`

	// Exclude lists addresses never handed out: single addresses
	// ("10.0.0.7"), ranges ("10.0.0.10-10.0.0.19") or prefixes ("10.0.0.64/28").
	// A prefix must have no host bits set: 10.0.0.77/24 is an error.
	// +optional
	Exclude []string `json:"exclude,omitempty"`

	// ServerIP is the DHCP server's address; never handed out.
	// +optional
	ServerIP string `json:"serverIP,omitempty"`

	// Router is the default gateway; never handed out.
	// +optional
	Router string `json:"router,omitempty"`

	// DNS lists the DNS servers offered to clients.
	// +optional
	DNS []string `json:"dns,omitempty"`

	// NTP lists the NTP servers offered to clients.
	// +optional
	NTP []string `json:"ntp,omitempty"`

	// Domain is the domain name offered to clients.
	// +optional
	Domain string `json:"domain,omitempty"`

	// DomainSearch lists the domain search list offered to clients (DHCP
	// option 119). The operator does not read it; the DHCP agent serves it.
	// +optional
	DomainSearch []string `json:"domainSearch,omitempty"`

	// LeaseTime is how long a DHCP lease lasts, such as "1h".
	// +optional
	LeaseTime *metav1.Duration `json:"leaseTime,omitempty"`

	// Strategy chooses the next address: Lowest (default) or Sequential.
	// +kubebuilder:validation:Enum=Lowest;Sequential
	// +optional
	Strategy string `json:"strategy,omitempty"`

	// MaxAllocations lowers the operator's limit (-max-allocations-per-pool)
	// of addresses this pool hands out to MACs. The pool's status holds every
	// allocation and must fit in one etcd object, so the operator's limit
	// cannot be raised here. At the limit the pool's CapacityLimited
	// condition is True and new claims wait. In a dual-stack pool the
	// limit applies to each family, and the operator's is halved (both
	// families share the one status); spec.maxAllocations, if lower, is
	// the number of addresses of each family (of NICs).
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxAllocations *int32 `json:"maxAllocations,omitempty"`

	// Paused stops the operator from handing out or releasing addresses of
	// this pool; claims wait until it is false again.
	// +optional
	Paused bool `json:"paused,omitempty"`

	// IPv6 makes the pool dual-stack: the fields above are its IPv4 part
	// (CIDR must then be IPv4), and every NIC that takes an IPv4 address from
	// the pool also takes an IPv6 address from this part, IPv4 first. Its
	// range has no size cap: the operator's memory follows what is
	// allocated, not the range (a /64 is fine). When the IPv6 part has no
	// address for a NIC but the IPv4 part has, the NIC gets its IPv4
	// address, its status has no ipv6Address, and its claim is Ready=False
	// with reason IPv6Exhausted (or IPv6CapacityLimited,
	// IPv6AllocationFailed) and one Warning Event, until an IPv6 address is
	// free. Nil: IPv4 (or IPv6) only, as CIDR says.
	// +optional
	IPv6 *IPPoolIPv6Spec `json:"ipv6,omitempty"`
}

// IPPoolIPv6Spec is the IPv6 part of a dual-stack IPPool: its addresses
// (stateful DHCPv6, IA_NA) and the DHCPv6 options its agents serve. Strategy
// and MaxAllocations of the IPPoolSpec apply to it too.
type IPPoolIPv6Spec struct {
	// CIDR is the IPv6 prefix in canonical form, such as fd00:1::/64.
	// +kubebuilder:validation:MinLength=1
	CIDR string `json:"cidr"`

	// RangeStart is the first address handed out; empty means the first
	// usable address of CIDR.
	// +optional
	RangeStart string `json:"rangeStart,omitempty"`

	// RangeEnd is the last address handed out; empty means the last usable
	// address of CIDR.
	// +optional
	RangeEnd string `json:"rangeEnd,omitempty"`

	// Exclude lists addresses never handed out: single addresses
	// ("fd00:1::7"), ranges ("fd00:1::10-fd00:1::1f") or prefixes
	// ("fd00:1::/120"). A prefix must have no host bits set.
	// +optional
	Exclude []string `json:"exclude,omitempty"`

	// Reserved lists single addresses never handed out, like serverIP and
	// router of the IPv4 part (the DHCPv6 server's or the router's own
	// address); reported as RESERVED in status.ipv6.allocated.
	// +optional
	Reserved []string `json:"reserved,omitempty"`

	// DNS lists the IPv6 DNS servers offered to clients (DHCPv6 option 23).
	// The operator does not read it; the DHCP agent serves it.
	// +optional
	DNS []string `json:"dns"`

	// DomainSearch lists the domain search list offered to clients (DHCPv6
	// option 24). The operator does not read it; the DHCP agent serves it.
	// +optional
	DomainSearch []string `json:"domainSearch"`

	// PreferredLifetime is the preferred lifetime of the addresses the
	// DHCP agent hands out, such as "30m"; it must not exceed
	// ValidLifetime.
	// +optional
	PreferredLifetime *metav1.Duration `json:"preferredLifetime,omitempty"`

	// ValidLifetime is the valid lifetime of the addresses the DHCP agent
	// hands out, such as "1h".
	// +optional
	ValidLifetime *metav1.Duration `json:"validLifetime,omitempty"`
}

// IPPoolStatus is the pool's persisted state: the source of truth from which
// every operator process rebuilds its in-memory pool.
type IPPoolStatus struct {
	// Allocated maps every address that is not free to the MAC it is given to,
	// or to EXCLUDED or RESERVED (ipam.MarkerExcluded, ipam.MarkerReserved),
	// in the form ipam.FormatAllocated writes and ipam.ParseAllocated reads.
	// +optional
	Allocated map[string]string `json:"allocated,omitempty"`

	// Size is the number of usable addresses in the range, in decimal (a /64
	// holds more than an int64).
	// +optional
	Size string `json:"size,omitempty"`

	// Used is the number of addresses given to MACs, in decimal.
	// +optional
	Used string `json:"used,omitempty"`

	// Available is the number of addresses still free, in decimal.
	// +optional
	Available string `json:"available,omitempty"`

	// CacheEpoch identifies the operator process whose in-memory cache the
	// CacheReady condition describes.
	// +optional
	CacheEpoch string `json:"cacheEpoch,omitempty"`

	// IPv6 is the state of the pool's IPv6 part (spec.ipv6) in the same
	// forms as the IPv4 fields above, which in a dual-stack pool hold the
	// IPv4 part. Nil when the pool has no IPv6 part.
	// +optional
	IPv6 *IPPoolFamilyStatus `json:"ipv6,omitempty"`

	// Conditions holds CacheReady, CapacityLimited and, once the
	// VirtualMachine controller runs, NetworkConflict.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// IPPoolFamilyStatus is the persisted state of one address family of a
// dual-stack pool, in the text forms of IPPoolStatus's own fields.
type IPPoolFamilyStatus struct {
	// Allocated maps every address that is not free to the MAC it is given
	// to, or to EXCLUDED or RESERVED, in the form ipam.FormatAllocated writes
	// and ipam.ParseAllocated reads.
	// +optional
	Allocated map[string]string `json:"allocated,omitempty"`

	// Size is the number of usable addresses in the range, in decimal.
	// +optional
	Size string `json:"size,omitempty"`

	// Used is the number of addresses given to MACs, in decimal.
	// +optional
	Used string `json:"used,omitempty"`

	// Available is the number of addresses still free, in decimal.
	// +optional
	Available string `json:"available,omitempty"`
}

// IPPool is one network's address pool.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ipp
// +kubebuilder:printcolumn:name="Network",type=string,JSONPath=`.spec.network`
// +kubebuilder:printcolumn:name="CIDR",type=string,JSONPath=`.spec.cidr`
// +kubebuilder:printcolumn:name="Used",type=string,JSONPath=`.status.used`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.available`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="CacheReady")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type IPPool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   IPPoolSpec   `json:"spec,omitempty"`
	Status IPPoolStatus `json:"status,omitempty"`
}

// IPPoolList is a list of IPPools.
//
// +kubebuilder:object:root=true
type IPPoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []IPPool `json:"items"`
}

func init() {
	SchemeBuilder.Register(&IPPool{}, &IPPoolList{})
}
