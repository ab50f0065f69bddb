package controller_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// claimOn returns a one-NIC claim named name for mac on pool.
func claimOn(ns, name, mac, pool string) *v1alpha1.VMNetworkConfig {
	return &v1alpha1.VMNetworkConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{{MAC: mac, Pool: pool}}},
	}
}

// readyOf returns "Status/Reason: message" of the claim's Ready condition for
// its current generation.
func readyOf(t *testing.T, c client.Client, ns, name string) string {
	t.Helper()
	vc := &v1alpha1.VMNetworkConfig{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, vc); err != nil {
		return err.Error()
	}
	for _, cond := range vc.Status.Conditions {
		if cond.Type == v1alpha1.ReadyType && cond.ObservedGeneration == vc.Generation {
			return string(cond.Status) + "/" + cond.Reason + ": " + cond.Message
		}
	}
	return "no Ready condition yet"
}

// waitReady waits until the claim's Ready reads "status/reason..." (prefix).
func waitReady(t *testing.T, c client.Client, ns, name, prefix string) string {
	t.Helper()
	var got string
	eventually(t, 60*time.Second, name+" "+prefix, func() (bool, string) {
		got = readyOf(t, c, ns, name)
		return strings.HasPrefix(got, prefix), got
	})
	return got
}

// capacityOf returns the pool's CapacityLimited condition, or nil.
func capacityOf(t *testing.T, c client.Client, ns, name string) *metav1.Condition {
	t.Helper()
	p := &v1alpha1.IPPool{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, p); err != nil {
		t.Fatal(err)
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == controller.CapacityLimitedType {
			return &cond
		}
	}
	return nil
}

// waitCapacity waits until the pool's CapacityLimited has status and its
// message starts with msg.
func waitCapacity(t *testing.T, c client.Client, ns, name string, status metav1.ConditionStatus, msg string) {
	t.Helper()
	eventually(t, 30*time.Second, fmt.Sprintf("pool %s CapacityLimited=%s %q", name, status, msg), func() (bool, string) {
		cond := capacityOf(t, c, ns, name)
		if cond == nil {
			return false, "no CapacityLimited condition"
		}
		return cond.Status == status && strings.HasPrefix(cond.Message, msg), fmt.Sprintf("%s/%s: %s", cond.Status, cond.Reason, cond.Message)
	})
}

// capacityEvents returns the messages of the CapacityLimited Events posted
// on claim name.
func capacityEvents(t *testing.T, c client.Client, ns, name string) []string {
	t.Helper()
	var list corev1.EventList
	if err := c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Name == name && ev.Reason == controller.ReasonCapacityLimited && ev.Type == corev1.EventTypeWarning {
			msgs = append(msgs, ev.Message)
		}
	}
	return msgs
}

// TestCapacityLimit fills a pool up to a small limit (the operator's
// -max-allocations-per-pool, then the pool's spec.maxAllocations below it):
// the pool reports CapacityLimited with the numbers, the next claim waits with
// reason CapacityLimited and one Warning Event, no address is lost or given
// twice, and a release lets the waiting claim through.
func TestCapacityLimit(t *testing.T) {
	cfg := apiServer(t)
	c := newClient(t, cfg)
	ctx := context.Background()
	ns := createNamespace(t, c, "capacity")
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
	eventually(t, 30*time.Second, "a CapacityLimited Event on vm-6", func() (bool, string) {
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

func poolVersion(t *testing.T, c client.Client, ns, name string) string {
	t.Helper()
	p := &v1alpha1.IPPool{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, p); err != nil {
		t.Fatal(err)
	}
	return p.ResourceVersion
}

// checkHeld checks that the pool's status and the Ready claims agree on
// exactly want allocations: each Ready claim's address is in the pool under
// its MAC, no address is given twice, and the pool holds nothing else.
func checkHeld(t *testing.T, c client.Client, ns, pool string, want int) {
	t.Helper()
	ctx := context.Background()
	p := &v1alpha1.IPPool{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: pool}, p); err != nil {
		t.Fatal(err)
	}
	var claims v1alpha1.VMNetworkConfigList
	if err := c.List(ctx, &claims, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	fromClaims := map[string]string{}
	for _, vc := range claims.Items {
		if !vc.DeletionTimestamp.IsZero() {
			continue
		}
		for _, n := range vc.Status.NICs {
			if other, dup := fromClaims[n.Address]; dup {
				t.Errorf("address %s given to %s and %s", n.Address, other, n.MAC)
			}
			fromClaims[n.Address] = n.MAC
		}
	}
	fromPool := map[string]string{}
	for a, owner := range p.Status.Allocated {
		if _, err := netip.ParseAddr(a); err == nil && strings.Count(owner, ":") == 5 {
			fromPool[a] = owner
		}
	}
	if !mapsEqual(fromClaims, fromPool) || len(fromPool) != want || p.Status.Used != fmt.Sprint(want) {
		t.Errorf("pool %s holds %d (used %s), want %d; claims vs pool:\n%s", pool, len(fromPool), p.Status.Used, want, mapDiff(fromClaims, fromPool))
	}
}
