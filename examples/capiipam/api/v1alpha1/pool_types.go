package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/ipam"
)

// PoolSpec is the spec of both pool kinds: the fields, JSON names and
// meaning of the in-cluster provider's InClusterIPPoolSpec, and
// preAllocations as Metal3's IPPool has it.
type PoolSpec struct {
	// Addresses lists what the pool hands out: single addresses
	// ("10.0.0.7"), ranges ("10.0.0.10-10.0.0.19") or prefixes
	// ("10.0.0.64/28", no host bits set), one family, not necessarily
	// contiguous, all inside one subnet of length Prefix.
	// +kubebuilder:validation:MinItems=1
	Addresses []string `json:"addresses"`

	// Prefix is the length of the addresses' subnet, written into every
	// IPAddress.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=128
	Prefix int `json:"prefix"`

	// Gateway is the subnet's router, written into every IPAddress and
	// never handed out.
	// +optional
	Gateway string `json:"gateway,omitempty"`

	// AllocateReservedIPAddresses hands out the subnet's network and
	// broadcast addresses (IPv4) or its first, subnet-router anycast
	// address (IPv6) too, when listed. A /31, /32, /127 or /128 has none
	// to leave out.
	// +optional
	AllocateReservedIPAddresses bool `json:"allocateReservedIPAddresses,omitempty"`

	// ExcludedAddresses are never handed out; same forms as Addresses.
	// +optional
	ExcludedAddresses []string `json:"excludedAddresses,omitempty"`

	// AddressReuseGracePeriodSeconds holds a deleted claim, and its
	// IPAddress and address, this long after the claim's deletion
	// timestamp before the address is freed, so that a replacement machine
	// does not get the address of one that is still shutting down. Zero or
	// unset: freed at once.
	// +optional
	// +kubebuilder:validation:Minimum=0
	AddressReuseGracePeriodSeconds *int32 `json:"addressReuseGracePeriodSeconds,omitempty"`

	// PreAllocations gives claims their addresses: the key is the claim's
	// name for a VMNetIPPool (claims of its namespace), its
	// namespace/name for a GlobalVMNetIPPool; the value one address the
	// pool hands out, at most one claim's. The address is held for its
	// claim from the pool's build on and handed to no other claim, also
	// while the claim does not exist; a claim bound before keeps its
	// IPAddress. An invalid entry is reported in CacheReady, naming it,
	// and the pool serves no new claim until it is fixed.
	// +optional
	PreAllocations map[string]PreAllocatedAddress `json:"preAllocations,omitempty"`
}

// AddressList returns the part of s that decides which addresses the pool
// hands out, for ipam.AddressList.Parse.
func (s PoolSpec) AddressList() ipam.AddressList {
	return ipam.AddressList{
		Addresses:                   s.Addresses,
		Prefix:                      s.Prefix,
		Gateway:                     s.Gateway,
		ExcludedAddresses:           s.ExcludedAddresses,
		AllocateReservedIPAddresses: s.AllocateReservedIPAddresses,
	}
}

// PoolStatus is the observed state of a pool.
type PoolStatus struct {
	// Addresses counts the pool's addresses, as the in-cluster provider
	// does.
	// +optional
	Addresses *PoolStatusAddresses `json:"ipAddresses,omitempty"`

	// Conditions: CacheReady (this process's in-memory pool is built from
	// the pool's IPAddresses and serves claims) and AddressesValid (every
	// IPAddress of the pool is one the pool holds).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// CacheEpoch is the epoch of the process that wrote CacheReady; a
	// CacheReady=True of another epoch is stale.
	// +optional
	CacheEpoch string `json:"cacheEpoch,omitempty"`
}

// PoolStatusAddresses counts a pool's addresses. Counts above the largest
// int read as the largest int.
type PoolStatusAddresses struct {
	// Total is how many addresses the pool can hand out: those listed,
	// less the excluded ones, the gateway and the subnet's reserved ones.
	Total int `json:"total"`

	// Used is how many IPAddresses name the pool, in range or not.
	Used int `json:"used"`

	// Free is how many addresses are still handed out: Total less the
	// used ones in range and the pre-allocated ones whose claim has no
	// IPAddress (counted in neither Used nor Free). (The in-cluster
	// provider subtracts every used one, so its Free undercounts while
	// some are out of range.)
	Free int `json:"free"`

	// OutOfRange is how many IPAddresses name an address the pool's
	// current spec does not hand out (the spec changed since). They are
	// kept, and never handed out again while they exist.
	OutOfRange int `json:"outOfRange"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1";"clusterctl.cluster.x-k8s.io/move="
// +kubebuilder:printcolumn:name="Addresses",type="string",JSONPath=".spec.addresses"
// +kubebuilder:printcolumn:name="Total",type="integer",JSONPath=".status.ipAddresses.total"
// +kubebuilder:printcolumn:name="Free",type="integer",JSONPath=".status.ipAddresses.free"
// +kubebuilder:printcolumn:name="Used",type="integer",JSONPath=".status.ipAddresses.used"
// +kubebuilder:validation:XValidation:rule="!has(self.spec) || !has(self.spec.preAllocations) || self.spec.preAllocations.all(k, !k.contains('/'))",message="each key is the name of a claim of the pool's namespace, without the namespace",fieldPath=".spec.preAllocations"

// VMNetIPPool is a namespaced pool: IPAddressClaims of its namespace whose
// poolRef is {apiGroup: ipam.vmnetkit.dev, kind: VMNetIPPool, name} get
// their addresses from it.
type VMNetIPPool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PoolSpec   `json:"spec,omitempty"`
	Status PoolStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// VMNetIPPoolList is a list of VMNetIPPools.
type VMNetIPPoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []VMNetIPPool `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories=cluster-api
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1";"clusterctl.cluster.x-k8s.io/move="
// +kubebuilder:printcolumn:name="Addresses",type="string",JSONPath=".spec.addresses"
// +kubebuilder:printcolumn:name="Total",type="integer",JSONPath=".status.ipAddresses.total"
// +kubebuilder:printcolumn:name="Free",type="integer",JSONPath=".status.ipAddresses.free"
// +kubebuilder:printcolumn:name="Used",type="integer",JSONPath=".status.ipAddresses.used"
// +kubebuilder:validation:XValidation:rule="!has(self.spec) || !has(self.spec.preAllocations) || self.spec.preAllocations.all(k, k.matches('^[^/]+/[^/]+$'))",message="each key is a claim's namespace/name",fieldPath=".spec.preAllocations"

// GlobalVMNetIPPool is a cluster-scoped pool: IPAddressClaims of every
// namespace may use it (kind GlobalVMNetIPPool).
type GlobalVMNetIPPool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PoolSpec   `json:"spec,omitempty"`
	Status PoolStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// GlobalVMNetIPPoolList is a list of GlobalVMNetIPPools.
type GlobalVMNetIPPoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GlobalVMNetIPPool `json:"items"`
}

// Pool is what both pool kinds share, for code that serves either.
// +kubebuilder:object:generate=false
type Pool interface {
	client.Object
	PoolSpec() *PoolSpec
	PoolStatus() *PoolStatus
}

// PoolSpec returns p's spec.
func (p *VMNetIPPool) PoolSpec() *PoolSpec { return &p.Spec }

// PoolStatus returns p's status.
func (p *VMNetIPPool) PoolStatus() *PoolStatus { return &p.Status }

// PoolSpec returns p's spec.
func (p *GlobalVMNetIPPool) PoolSpec() *PoolSpec { return &p.Spec }

// PoolStatus returns p's status.
func (p *GlobalVMNetIPPool) PoolStatus() *PoolStatus { return &p.Status }

func init() {
	SchemeBuilder.Register(&VMNetIPPool{}, &VMNetIPPoolList{}, &GlobalVMNetIPPool{}, &GlobalVMNetIPPoolList{})
}
