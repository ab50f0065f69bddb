package kubetest_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

func TestAssetsDirMissing(t *testing.T) {
	tests := []struct {
		name   string
		assets string
		want   string
	}{
		{name: "unset", assets: "", want: "KUBEBUILDER_ASSETS is unset"},
		{name: "empty folder", assets: t.TempDir(), want: "kube-apiserver"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(kubetest.AssetsEnv, tt.assets)
			_, err := kubetest.AssetsDir()
			if !errors.Is(err, kubetest.ErrNoAssets) {
				t.Fatalf("AssetsDir() error = %v, want ErrNoAssets", err)
			}
			for _, s := range []string{tt.want, "make test", "./hack/envtest-assets.sh"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("AssetsDir() error = %q, want it to mention %q", err, s)
				}
			}
		})
	}
}

func TestStart(t *testing.T) {
	cfg := kubetest.Start(t, filepath.Join("testdata", "widgets.yaml"))
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default"},
		Data:       map[string]string{"k": "v"},
	}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatalf("create ConfigMap: %v", err)
	}

	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(schema.GroupVersionKind{Group: "kubetest.vmnetkit.dev", Version: "v1", Kind: "Widget"})
	w.SetName("w1")
	w.SetNamespace("default")
	if err := c.Create(ctx, w); err != nil {
		t.Fatalf("create Widget from the installed CRD: %v", err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(w.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(w), got); err != nil {
		t.Fatalf("get Widget: %v", err)
	}
}
