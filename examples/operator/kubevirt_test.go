package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// TestRunKubeVirt runs the command, as the user bound to the generated role
// only, against an API server with KubeVirt's CRDs: it starts its
// VirtualMachine controller, and the KubeVirt samples' VM gets its address
// (so the role covers the VM and instance reads). TestRun runs it without
// KubeVirt, where it does not start that controller.
func TestRunKubeVirt(t *testing.T) {
	k := newCluster(t, filepath.Join("controller", "testdata", "kubevirt"))
	k.bindRole(t)
	log := k.start(t, "kubevirt")
	ctx := context.Background()
	for _, file := range []string{"ippool.yaml", "virtualmachine.yaml"} {
		data, err := os.ReadFile(filepath.Join("config", "samples", "kubevirt", file))
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		u.SetNamespace("vms")
		if err := k.c.Create(ctx, u); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	// KubeVirt's part: the running instance reports the interface's MAC.
	const mac = "02:8a:1c:00:00:07"
	vmi := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstance",
		"metadata": map[string]any{"name": "vm-2", "namespace": "vms"},
		"spec":     map[string]any{"domain": map[string]any{"devices": map[string]any{}}},
		"status":   map[string]any{"interfaces": []any{map[string]any{"name": "lan", "mac": mac}}},
	}}
	if err := k.c.Create(ctx, vmi); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, 60*time.Second, "vm-2's generated config with its address", func() (bool, string) {
		got := &v1alpha1.VMNetworkConfig{}
		if err := k.c.Get(ctx, client.ObjectKey{Namespace: "vms", Name: "vm-2"}, got); err != nil {
			return false, fmt.Sprintf("%v; operator log:\n%s", err, log.String())
		}
		ok := len(got.Status.NICs) == 1 && got.Status.NICs[0].MAC == mac && got.Status.NICs[0].Address == "192.168.60.50"
		return ok, fmt.Sprintf("status %+v; operator log:\n%s", got.Status, log.String())
	})
}
