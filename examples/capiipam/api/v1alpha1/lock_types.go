package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AddressLockKind is the kind of the lock of one address of one pool.
const AddressLockKind = "VMNetIPAddressLock"

// AddressLockSpec names the address a VMNetIPAddressLock locks and the
// IPAddress that holds it. It is written once, at create.
type AddressLockSpec struct {
	// PoolKind, PoolNamespace (empty for a GlobalVMNetIPPool) and PoolName
	// name the pool.
	PoolKind string `json:"poolKind"`
	// +optional
	PoolNamespace string `json:"poolNamespace,omitempty"`
	PoolName      string `json:"poolName"`

	// Address is the locked address, as the IPAddress writes it.
	Address string `json:"address"`

	// HolderNamespace and HolderName name the IPAddress (of the claim's
	// name and namespace) created, or about to be created, under this
	// lock.
	HolderNamespace string `json:"holderNamespace"`
	HolderName      string `json:"holderName"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1";"clusterctl.cluster.x-k8s.io/move="
// +kubebuilder:printcolumn:name="Pool",type="string",JSONPath=".spec.poolName"
// +kubebuilder:printcolumn:name="Address",type="string",JSONPath=".spec.address"
// +kubebuilder:printcolumn:name="Holder",type="string",JSONPath=".spec.holderName"

// VMNetIPAddressLock is the provider's create-only lock of one address of
// one pool: its name is derived from the pool and the address, so the API
// server itself refuses a second one (AlreadyExists), whatever any
// process's cache shows. The provider creates it before the IPAddress it
// protects and deletes it after that IPAddress; nothing else reads it on
// the way of a claim.
type VMNetIPAddressLock struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec AddressLockSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// VMNetIPAddressLockList is a list of VMNetIPAddressLocks.
type VMNetIPAddressLockList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []VMNetIPAddressLock `json:"items"`
}

func init() {
	SchemeBuilder.Register(&VMNetIPAddressLock{}, &VMNetIPAddressLockList{})
}
