package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// TestLifecycle covers what the big scenarios do not: a MAC claimed twice,
// a paused pool (claims wait, deletions wait), and an exhausted pool.
func TestLifecycle(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "lifecycle")
	// Four allocatable addresses: .3 to .6 (.2 is the server).
	createPool(t, c, ns, "small", v1alpha1.IPPoolSpec{
		Network: "vm-net", CIDR: "10.40.0.0/29", RangeStart: "10.40.0.2", RangeEnd: "10.40.0.6",
		ServerIP: "10.40.0.2", Router: "10.40.0.1",
	})
	m := startManager(t, cfg, ns, "epoch-lifecycle", nil)
	waitPoolsReady(t, c, ns, m.epoch, "small")

	newClaim := func(name, mac string) {
		t.Helper()
		vc := &v1alpha1.VMNetworkConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{{MAC: mac, Pool: "small"}}},
		}
		if err := c.Create(ctx, vc); err != nil {
			t.Fatal(err)
		}
	}
	readyReason := func(name string) string {
		vc := &v1alpha1.VMNetworkConfig{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, vc); err != nil {
			return err.Error()
		}
		for _, cond := range vc.Status.Conditions {
			if cond.Type == v1alpha1.ReadyType && cond.ObservedGeneration == vc.Generation {
				return string(cond.Status) + "/" + cond.Reason
			}
		}
		return "no Ready condition yet"
	}
	waitReason := func(name, want string) {
		t.Helper()
		kubetest.Eventually(t, 30*time.Second, name+" "+want, func() (bool, string) {
			got := readyReason(name)
			return got == want, got
		})
	}
	deleteClaim := func(name string) {
		t.Helper()
		if err := c.Delete(ctx, &v1alpha1.VMNetworkConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	gone := func(name string) bool {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &v1alpha1.VMNetworkConfig{})
		return apierrors.IsNotFound(err)
	}
	setPaused := func(paused bool) {
		t.Helper()
		p := &v1alpha1.IPPool{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "small"}, p); err != nil {
			t.Fatal(err)
		}
		p.Spec.Paused = paused
		if err := c.Update(ctx, p); err != nil {
			t.Fatal(err)
		}
	}

	// One MAC, two claims: the younger waits until the older is gone.
	newClaim("first", "52:54:00:00:00:01")
	waitReason("first", "True/"+controller.ReasonAllocated)
	newClaim("second", "52-54-00-00-00-01")
	waitReason("second", "False/"+controller.ReasonDuplicateMAC)
	deleteClaim("first")
	waitReason("second", "True/"+controller.ReasonAllocated)
	checkState(t, c, ns)

	// Paused: a new claim waits, and so does a deletion.
	setPaused(true)
	kubetest.Eventually(t, 30*time.Second, "CacheReady False/Paused", func() (bool, string) {
		p := &v1alpha1.IPPool{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "small"}, p); err != nil {
			return false, err.Error()
		}
		st, reason := cacheReady(p)
		return st == "False" && reason == "Paused", st + "/" + reason
	})
	newClaim("third", "52:54:00:00:00:03")
	waitReason("third", "False/"+controller.ReasonPoolNotReady)
	deleteClaim("second")
	time.Sleep(time.Second)
	if gone("second") {
		t.Fatalf("claim second went away while its pool was paused: its address was not released")
	}
	setPaused(false)
	waitReason("third", "True/"+controller.ReasonAllocated)
	kubetest.Eventually(t, 30*time.Second, "claim second gone", func() (bool, string) { return gone("second"), "still there" })
	checkState(t, c, ns)

	// Exhausted: four addresses, five claims.
	for i := 4; i <= 7; i++ {
		newClaim(fmt.Sprintf("vm-%d", i), fmt.Sprintf("52:54:00:00:00:%02x", i))
	}
	var failed []string
	kubetest.Eventually(t, 30*time.Second, "3 more claims Ready and one exhausted", func() (bool, string) {
		failed = failed[:0]
		ready := 0
		for i := 4; i <= 7; i++ {
			switch got := readyReason(fmt.Sprintf("vm-%d", i)); got {
			case "True/" + controller.ReasonAllocated:
				ready++
			case "False/" + controller.ReasonAllocationFailed:
				failed = append(failed, fmt.Sprintf("vm-%d", i))
			}
		}
		return ready == 3 && len(failed) == 1, fmt.Sprintf("%d Ready, failed %v", ready, failed)
	})
	deleteClaim(failed[0])
	kubetest.Eventually(t, 30*time.Second, "the exhausted claim gone", func() (bool, string) { return gone(failed[0]), "still there" })
	checkState(t, c, ns)
}
