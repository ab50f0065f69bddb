package controller_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// TestSamples applies the README's sample pool and claim and checks that the
// claim gets its addresses.
func TestSamples(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "samples")
	pool := &v1alpha1.IPPool{}
	claim := &v1alpha1.VMNetworkConfig{}
	for file, obj := range map[string]client.Object{"ippool.yaml": pool, "vmnetworkconfig.yaml": claim} {
		data, err := os.ReadFile(filepath.Join("..", "config", "samples", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(data, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		obj.SetNamespace(ns)
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	m := startManager(t, cfg, ns, "epoch-samples", nil)
	waitPoolsReady(t, c, ns, m.epoch, pool.Name)
	waitClaimsReady(t, c, ns, 1)
	checkState(t, c, ns)
}
