package controller_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

var update = flag.Bool("update", false, "rewrite the DHCP agent's sample pool (poolJSONPath) from what the operator writes")

// poolJSONPath is the DHCP agent's sample input, which the README links:
// the IPPool as `kubectl get ippool lab -o json` prints it.
var poolJSONPath = filepath.Join("..", "..", "dhcpagent", "poolsource", "testdata", "pool.json")

// The values that stand in for what changes from run to run.
const (
	fixedTime     = "2026-12-01T10:00:00Z"
	fixedUID      = "6f1c2b9e-0000-4000-8000-000000000042"
	fixedVersion  = "42"
	poolJSONEpoch = "3f2a9c1d7e5b4a60"
)

// TestAgentSamplePool runs the operator on the agent's sample pool (lab in
// namespace default, two VMs) and compares the IPPool as the API server
// returns it, volatile fields normalised and managedFields dropped as
// kubectl does, with the agent's poolsource/testdata/pool.json. -update rewrites it.
func TestAgentSamplePool(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	const ns = "default" // the agent's tests name the pool default/lab
	pool := &v1alpha1.IPPool{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lab"},
		Spec: v1alpha1.IPPoolSpec{
			Network: "br-lab", CIDR: "10.20.0.0/24", RangeStart: "10.20.0.10", RangeEnd: "10.20.0.200",
			Exclude:  []string{"10.20.0.50-10.20.0.59", "10.20.0.77"},
			ServerIP: "10.20.0.2", Router: "10.20.0.1",
			DNS: []string{"10.20.0.2"}, NTP: []string{"10.20.0.3"},
			Domain: "lab.example", DomainSearch: []string{"lab.example", "example"},
			LeaseTime: &metav1.Duration{Duration: time.Hour},
		},
	}
	if err := c.Create(ctx, pool); err != nil {
		t.Fatal(err)
	}
	m := startManager(t, cfg, ns, poolJSONEpoch, nil)
	var claims []*v1alpha1.VMNetworkConfig
	t.Cleanup(func() { // default is shared by every run of the test (-count)
		m.stop()
		for _, vc := range claims {
			vc.Finalizers = nil
			_ = c.Update(ctx, vc)
			_ = c.Delete(ctx, vc)
		}
		_ = c.Delete(ctx, pool)
	})
	waitPoolsReady(t, c, ns, m.epoch, "lab")
	// One VM after the other, so that the first gets the lowest address.
	for i := 1; i <= 2; i++ {
		vc := claimOn(ns, fmt.Sprintf("lab-vm-%d", i), fmt.Sprintf("52:54:00:aa:bb:%02d", i), "lab")
		if err := c.Create(ctx, vc); err != nil {
			t.Fatal(err)
		}
		claims = append(claims, vc)
		waitReady(t, c, ns, vc.Name, "True/")
	}

	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("IPPool"))
	if err := c.Get(ctx, client.ObjectKeyFromObject(pool), u); err != nil {
		t.Fatal(err)
	}
	got := normalise(t, u.Object)
	if *update {
		if err := os.WriteFile(poolJSONPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", poolJSONPath)
		return
	}
	want, err := os.ReadFile(poolJSONPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is not what the operator writes (-file +operator); run this test with -update:\n%s", poolJSONPath, diff)
	}
}

// normalise returns obj as kubectl's -o json prints it (four-space indent,
// keys sorted, no managedFields), with the fields that change from run to
// run replaced by fixed values.
func normalise(t *testing.T, obj map[string]any) []byte {
	t.Helper()
	meta := obj["metadata"].(map[string]any)
	delete(meta, "managedFields")
	meta["uid"], meta["resourceVersion"], meta["creationTimestamp"] = fixedUID, fixedVersion, fixedTime
	status := obj["status"].(map[string]any)
	if status["cacheEpoch"] != poolJSONEpoch {
		t.Fatalf("status.cacheEpoch = %v, want %s", status["cacheEpoch"], poolJSONEpoch)
	}
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		c.(map[string]any)["lastTransitionTime"] = fixedTime
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
