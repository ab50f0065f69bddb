package provider

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of [VMMachine], served by the
// CRD in config/crd.
var GroupVersion = schema.GroupVersion{Group: "infrastructure.vmnetkit.dev", Version: "v1alpha1"}

// AddToScheme registers [VMMachine] and [VMMachineList] in a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &VMMachine{}, &VMMachineList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
