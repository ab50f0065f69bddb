package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// TestSplitBrain runs two operator processes at once on one pool, as during
// a leader handover gone wrong: no leader election, different epochs. Each
// serves its own claims, and some claims are served by both. Every write is
// conditional on the resourceVersion the writer's cache was restored from, so
// conflicts must happen, and no address may be given twice.
func TestSplitBrain(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "splitbrain")
	createPool(t, c, ns, "shared", v1alpha1.IPPoolSpec{
		Network: "vm-net", CIDR: "10.30.0.0/24", RangeStart: "10.30.0.2", RangeEnd: "10.30.0.254",
		Exclude: []string{"10.30.0.64/27"}, ServerIP: "10.30.0.2", Router: "10.30.0.1",
	})

	step := time.Now()
	a := startManager(t, cfg, ns, "epoch-a", labels.SelectorFromSet(nil).Add(mustRequirement(t, "side", "a", "both")))
	b := startManager(t, cfg, ns, "epoch-b", labels.SelectorFromSet(nil).Add(mustRequirement(t, "side", "b", "both")))
	sides := []string{"a", "b", "a", "b", "both"}
	const n = 150
	err := kubetest.InParallel(n, 16, func(i int) error {
		return c.Create(ctx, &v1alpha1.VMNetworkConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("vm-%03d", i), Labels: map[string]string{"side": sides[i%len(sides)]}},
			Spec: v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{
				{MAC: fmt.Sprintf("52:54:00:0b:%02x:%02x", i>>8, i&0xff), Pool: "shared"},
			}},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	waitClaimsReady(t, c, ns, n)
	checkState(t, c, ns)
	t.Logf("two processes served %d claims in %v; IPPool status write conflicts: a %d, b %d",
		n, time.Since(step).Round(time.Millisecond), a.conflicts.Load(), b.conflicts.Load())
	if a.conflicts.Load()+b.conflicts.Load() == 0 {
		t.Errorf("no write conflict between the two processes: the test did not exercise the conflict path")
	}
}

func mustRequirement(t *testing.T, key string, values ...string) labels.Requirement {
	t.Helper()
	r, err := labels.NewRequirement(key, "in", values)
	if err != nil {
		t.Fatal(err)
	}
	return *r
}
