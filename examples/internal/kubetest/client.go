package kubetest

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewClient returns a direct (uncached) client of the API server of cfg
// that knows the types of scheme, with watches. It keeps cfg's client-side
// rate limit (envtest's admin config allows 1000 QPS, so the tests measure
// the code under test, not the limiter).
func NewClient(t testing.TB, cfg *rest.Config, scheme *runtime.Scheme) client.WithWatch {
	t.Helper()
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// CreateNamespace creates a namespace named after prefix ("prefix-" and a
// random suffix), new for each run of a test (-count) on a shared API
// server, and returns its name.
func CreateNamespace(t testing.TB, c client.Client, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}
