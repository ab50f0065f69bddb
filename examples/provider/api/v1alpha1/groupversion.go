package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// GroupVersion is the group and version of every type in this package,
// served by the CRD in ../../config/crd.
var GroupVersion = schema.GroupVersion{Group: "infrastructure.vmnetkit.dev", Version: "v1alpha1"}

var (
	// SchemeBuilder registers this package's types with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds VMMachine and VMMachineList to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
