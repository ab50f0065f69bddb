package controller_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestSamples applies the README's sample pools and claim, and a claim of
// the IPv6 global pool made from it, and checks the addresses they get.
func TestSamples(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "samples")
	pool := &v1alpha1.VMNetIPPool{}
	global := &v1alpha1.GlobalVMNetIPPool{}
	claim := &ipamv1.IPAddressClaim{}
	for file, obj := range map[string]client.Object{"vmnetippool.yaml": pool, "globalvmnetippool.yaml": global, "ipaddressclaim.yaml": claim} {
		data, err := os.ReadFile(filepath.Join("..", "config", "samples", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(data, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if obj == global {
			obj.SetName(ns + "-" + obj.GetName()) // cluster-scoped: one per run
		} else {
			obj.SetNamespace(ns)
		}
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	claim6 := capiipamtest.NewClaim(ns, "machine-0-nic-1", capiipamtest.PoolRef(v1alpha1.GlobalPoolKind, global.Name))
	capiipamtest.Create(t, c, claim6)
	capiipamtest.StartManager(t, cfg, ns, "epoch-samples", nil)
	if ip := capiipamtest.WaitAddress(t, c, ns, claim.Name); ip.Spec.Address != "10.10.0.10" || *ip.Spec.Prefix != 24 || ip.Spec.Gateway != "10.10.0.1" {
		t.Errorf("sample claim got %+v, want 10.10.0.10/24 via 10.10.0.1", ip.Spec)
	}
	if ip := capiipamtest.WaitAddress(t, c, ns, claim6.Name); ip.Spec.Address != "fd00:10::10" || *ip.Spec.Prefix != 64 {
		t.Errorf("IPv6 claim got %+v, want fd00:10::10/64", ip.Spec)
	}
}
