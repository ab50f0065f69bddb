package kubevirt

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VirtualMachine is KubeVirt's VirtualMachine, with only its template's
// interfaces and networks. Read-only: see the package comment.
//
// +kubebuilder:object:root=true
type VirtualMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec VirtualMachineSpec `json:"spec"`
}

// VirtualMachineSpec holds the template of the VM's instances.
type VirtualMachineSpec struct {
	// +optional
	Template *Template `json:"template,omitempty"`
}

// Template is the template of the VM's instances.
type Template struct {
	// +optional
	Spec InstanceSpec `json:"spec"`
}

// VirtualMachineList is a list of VirtualMachines.
//
// +kubebuilder:object:root=true
type VirtualMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []VirtualMachine `json:"items"`
}

// Interfaces returns the interfaces of the VM's template, nil without one.
func (vm *VirtualMachine) Interfaces() []Interface {
	if vm.Spec.Template == nil {
		return nil
	}
	return vm.Spec.Template.Spec.Domain.Devices.Interfaces
}

// Networks returns the networks of the VM's template, nil without one.
func (vm *VirtualMachine) Networks() []Network {
	if vm.Spec.Template == nil {
		return nil
	}
	return vm.Spec.Template.Spec.Networks
}

func init() {
	SchemeBuilder.Register(&VirtualMachine{}, &VirtualMachineList{})
}
