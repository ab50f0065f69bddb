package kubevirt

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// GroupVersion is KubeVirt's core API group and version.
var GroupVersion = schema.GroupVersion{Group: "kubevirt.io", Version: "v1"}

var (
	// SchemeBuilder registers this package's types with a runtime.Scheme,
	// as kubevirt.io/v1.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds this package's types to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
