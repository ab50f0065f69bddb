package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// TestCapacityLimit fills a pool up to a small limit (the operator's
// -max-allocations-per-pool, then the pool's spec.maxAllocations below it):
// the pool reports CapacityLimited with the numbers, the next claim waits with
// reason CapacityLimited and one Warning Event, no address is lost or given
// twice, and a release lets the waiting claim through.
func TestCapacityLimit(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "capacity")
	createPool(t, c, ns, "net", v1alpha1.IPPoolSpec{
		Network: "vm-net", CIDR: "10.50.0.0/24", RangeStart: "10.50.0.10", RangeEnd: "10.50.0.200",
		ServerIP: "10.50.0.2", Router: "10.50.0.1",
	})
	m := startManagerWith(t, cfg, ns, "epoch-capacity", nil, controller.Options{MaxAllocations: 6})
	waitPoolsReady(t, c, ns, m.epoch, "net")
	waitCapacity(t, c, ns, "net", metav1.ConditionFalse, "0 of at most 6 addresses")

	mac := func(i int) string { return fmt.Sprintf("52:54:00:50:00:%02x", i) }
	for i := range 6 {
		if err := c.Create(ctx, claimOn(ns, fmt.Sprintf("vm-%d", i), mac(i), "net")); err != nil {
			t.Fatal(err)
		}
	}
	waitClaimsReady(t, c, ns, 6)
	waitCapacity(t, c, ns, "net", metav1.ConditionTrue, "6 of at most 6 addresses handed out: new claims wait")

	if err := c.Create(ctx, claimOn(ns, "vm-6", mac(6), "net")); err != nil {
		t.Fatal(err)
	}
	got := waitReady(t, c, ns, "vm-6", "False/"+controller.ReasonCapacityLimited)
	if !strings.Contains(got, "has handed out 6 of at most 6 addresses") {
		t.Errorf("vm-6 Ready = %q, want the numbers in the message", got)
	}
	kubetest.Eventually(t, 30*time.Second, "a CapacityLimited Event on vm-6", func() (bool, string) {
		evs := capacityEvents(t, c, ns, "vm-6")
		return len(evs) > 0, fmt.Sprint(evs)
	})
	// The claim keeps waiting (retried every 250 ms here) without a write
	// loop: the pool's status is not written again, and the Event is posted
	// once, not at every retry.
	before := poolVersion(t, c, ns, "net")
	time.Sleep(2 * time.Second)
	if after := poolVersion(t, c, ns, "net"); after != before {
		t.Errorf("pool written while the claim waits: resourceVersion %s -> %s", before, after)
	}
	if evs := capacityEvents(t, c, ns, "vm-6"); len(evs) != 1 {
		t.Errorf("CapacityLimited Events on vm-6 = %q, want one", evs)
	}
	checkHeld(t, c, ns, "net", 6)

	// A release lets the waiting claim through, and the pool stays full.
	if err := c.Delete(ctx, claimOn(ns, "vm-0", mac(0), "net")); err != nil {
		t.Fatal(err)
	}
	waitReady(t, c, ns, "vm-6", "True/")
	waitCapacity(t, c, ns, "net", metav1.ConditionTrue, "6 of at most 6")
	checkHeld(t, c, ns, "net", 6)

	// spec.maxAllocations lowers the limit without a rebuild.
	p := &v1alpha1.IPPool{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "net"}, p); err != nil {
		t.Fatal(err)
	}
	p.Spec.MaxAllocations = ptr.To[int32](4)
	if err := c.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	waitCapacity(t, c, ns, "net", metav1.ConditionTrue, "6 of at most 4")
	for _, name := range []string{"vm-1", "vm-2", "vm-3"} {
		if err := c.Delete(ctx, claimOn(ns, name, "", "net")); err != nil {
			t.Fatal(err)
		}
	}
	waitCapacity(t, c, ns, "net", metav1.ConditionFalse, "3 of at most 4")
	checkHeld(t, c, ns, "net", 3)
}
