package manager

import (
	"errors"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestScheme(t *testing.T) {
	gv := schema.GroupVersion{Group: "example.vmnetkit.dev", Version: "v1"}
	s, err := Scheme(func(s *runtime.Scheme) error {
		s.AddKnownTypes(gv, &corev1.ConfigMap{})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, gvk := range []schema.GroupVersionKind{
		corev1.SchemeGroupVersion.WithKind("Node"),
		corev1.SchemeGroupVersion.WithKind("Event"),
		coordinationv1.SchemeGroupVersion.WithKind("Lease"),
		gv.WithKind("ConfigMap"),
	} {
		if !s.Recognizes(gvk) {
			t.Errorf("the scheme does not know %s", gvk)
		}
	}
	bad := errors.New("conflicting registration")
	if _, err := Scheme(func(*runtime.Scheme) error { return bad }); !errors.Is(err, bad) {
		t.Errorf("Scheme with a failing add = %v, want %v", err, bad)
	}
}
