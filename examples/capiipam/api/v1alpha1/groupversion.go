package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// GroupVersion is the group and version of every type in this package.
var GroupVersion = schema.GroupVersion{Group: "ipam.vmnetkit.dev", Version: "v1alpha1"}

var (
	// SchemeBuilder registers this package's types with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds this package's types to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// The kinds a claim's poolRef names, with apiGroup ipam.vmnetkit.dev.
const (
	PoolKind       = "VMNetIPPool"
	GlobalPoolKind = "GlobalVMNetIPPool"
)
