package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestClaimFailures: a claim for a missing pool, a kind this provider does
// not serve, or an exhausted pool gets Ready=False with a reason and a
// message, and no IPAddress; each is served once the cause goes away.
func TestClaimFailures(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "failures")
	capiipamtest.StartManager(t, cfg, ns, "epoch-failures", nil)

	capiipamtest.Create(t, c,
		capiipamtest.NewClaim(ns, "no-pool", capiipamtest.PoolRef(v1alpha1.PoolKind, "later")),
		capiipamtest.NewClaim(ns, "wrong-kind", capiipamtest.PoolRef("InClusterIPPool", "later")),
		capiipamtest.NewPool(ns, "tiny", v1alpha1.PoolSpec{Addresses: []string{"10.9.0.5-10.9.0.6"}, Prefix: 24}),
		capiipamtest.NewClaim(ns, "tiny-0", capiipamtest.PoolRef(v1alpha1.PoolKind, "tiny")),
		capiipamtest.NewClaim(ns, "tiny-1", capiipamtest.PoolRef(v1alpha1.PoolKind, "tiny")),
	)
	freed := capiipamtest.WaitAddress(t, c, ns, "tiny-0").Spec.Address // .5 or .6: tiny-0 and tiny-1 race
	capiipamtest.WaitAddress(t, c, ns, "tiny-1")
	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "tiny-2", capiipamtest.PoolRef(v1alpha1.PoolKind, "tiny")))

	tests := []struct {
		claim, reason, message string
	}{
		{"no-pool", controller.ReasonPoolNotReady, "VMNetIPPool " + ns + "/later not found"},
		{"wrong-kind", controller.ReasonAllocationFailed, `poolRef kind "InClusterIPPool" of apiGroup ipam.vmnetkit.dev is not a pool kind`},
		{"tiny-2", controller.ReasonPoolExhausted, "no free address"},
	}
	for _, tt := range tests {
		cond := capiipamtest.WaitReason(t, c, ns, tt.claim, tt.reason)
		if !strings.Contains(cond.Message, tt.message) {
			t.Errorf("claim %s: Ready message %q, want it to contain %q", tt.claim, cond.Message, tt.message)
		}
		if capiipamtest.Get(t, c, &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, tt.claim)}) {
			t.Errorf("claim %s: an IPAddress exists", tt.claim)
		}
	}

	// The causes go away: the pool appears, an address is freed.
	capiipamtest.Create(t, c, capiipamtest.NewPool(ns, "later", v1alpha1.PoolSpec{Addresses: []string{"10.8.0.0/29"}, Prefix: 29}))
	if ip := capiipamtest.WaitAddress(t, c, ns, "no-pool"); ip.Spec.Address != "10.8.0.1" {
		t.Errorf("no-pool got %s, want 10.8.0.1", ip.Spec.Address)
	}
	if err := c.Delete(context.Background(), &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, "tiny-0")}); err != nil {
		t.Fatal(err)
	}
	if ip := capiipamtest.WaitAddress(t, c, ns, "tiny-2"); ip.Spec.Address != freed {
		t.Errorf("tiny-2 got %s, want the freed %s", ip.Spec.Address, freed)
	}
	// A kind of another provider's group is left alone entirely.
	other := capiipamtest.NewClaim(ns, "other-group", ipamv1.IPPoolReference{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "x"})
	capiipamtest.Create(t, c, other)
	capiipamtest.Never(t, 2*time.Second, "a claim of another provider is touched", func() (bool, string) {
		capiipamtest.Get(t, c, other)
		return len(other.Finalizers) > 0 || len(other.Status.Conditions) > 0, "finalizers or status written"
	})
}

// TestPoolDeletionBlocked: a pool is not deleted while IPAddresses of it
// exist; it goes once they do.
func TestPoolDeletionBlocked(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "pooldelete")
	capiipamtest.StartManager(t, cfg, ns, "epoch-pooldelete", nil)

	pool := capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{Addresses: []string{"10.0.0.0/24"}, Prefix: 24})
	claim := capiipamtest.NewClaim(ns, "m", capiipamtest.PoolRef(v1alpha1.PoolKind, "net"))
	capiipamtest.Create(t, c, pool, claim)
	capiipamtest.WaitAddress(t, c, ns, "m")
	if err := c.Delete(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	capiipamtest.Never(t, 2*time.Second, "pool deleted while an IPAddress of it exists", func() (bool, string) {
		return !capiipamtest.Get(t, c, pool.DeepCopy()), "pool gone"
	})
	capiipamtest.Get(t, c, pool)
	if pool.DeletionTimestamp.IsZero() {
		t.Fatal("pool has no deletion timestamp")
	}
	// While it is being deleted, new claims wait.
	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "late", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	capiipamtest.WaitReason(t, c, ns, "late", controller.ReasonPoolNotReady)

	if err := c.Delete(context.Background(), claim); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, 15*time.Second, "pool gone after its last IPAddress", func() (bool, string) {
		return !capiipamtest.Get(t, c, pool.DeepCopy()), "pool still there"
	})
}

// TestPoolAddressesChange: when a pool's addresses change so that
// allocated ones fall outside, their IPAddresses are kept, counted as
// outOfRange, reported, and never handed out again.
func TestPoolAddressesChange(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "shrink")
	capiipamtest.StartManager(t, cfg, ns, "epoch-shrink", nil)

	pool := capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{Addresses: []string{"10.0.0.10-10.0.0.15"}, Prefix: 24})
	capiipamtest.Create(t, c, pool)
	for _, n := range []string{"a", "b", "c"} {
		capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, n, capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
		capiipamtest.WaitAddress(t, c, ns, n) // one by one: a .10, b .11, c .12
	}
	capiipamtest.Update(t, c, pool, func() { pool.Spec.Addresses = []string{"10.0.0.12-10.0.0.20"} })
	kubetest.Eventually(t, 15*time.Second, "outOfRange counted", func() (bool, string) {
		capiipamtest.Get(t, c, pool)
		a := pool.Status.Addresses
		return a != nil && *a == v1alpha1.PoolStatusAddresses{Total: 9, Used: 3, Free: 8, OutOfRange: 2} &&
			capiipamtest.HasCondition(pool.Status.Conditions, controller.AddressesValidType, "False"), capiipamtest.StatusText(pool.Status)
	})
	for _, n := range []string{"a", "b"} {
		if !capiipamtest.Get(t, c, &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, n)}) {
			t.Errorf("IPAddress %s out of range was deleted", n)
		}
	}
	kubetest.Eventually(t, 15*time.Second, "an Event for each IPAddress out of range", func() (bool, string) {
		var events corev1.EventList
		if err := c.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range events.Items {
			if e.Reason == controller.ReasonAddressesInvalid && e.InvolvedObject.Name == "net" && e.Type == corev1.EventTypeWarning {
				got = append(got, e.Message)
			}
		}
		return len(got) == 2 && strings.Contains(strings.Join(got, "\n"), ns+"/a") && strings.Contains(strings.Join(got, "\n"), ns+"/b"), fmt.Sprint(got)
	})
	var got []string
	for i := range 8 {
		n := "new-" + string(rune('0'+i))
		capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, n, capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
		got = append(got, capiipamtest.WaitAddress(t, c, ns, n).Spec.Address)
	}
	want := []string{"10.0.0.13", "10.0.0.14", "10.0.0.15", "10.0.0.16", "10.0.0.17", "10.0.0.18", "10.0.0.19", "10.0.0.20"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("new claims got %v, want %v", got, want)
	}
	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "one-more", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	capiipamtest.WaitReason(t, c, ns, "one-more", controller.ReasonPoolExhausted)
	capiipamtest.CheckUnique(t, c, ns)

	// Back to a spec that holds them: nothing is out of range.
	capiipamtest.Update(t, c, pool, func() { pool.Spec.Addresses = []string{"10.0.0.10-10.0.0.20"} })
	kubetest.Eventually(t, 15*time.Second, "nothing out of range", func() (bool, string) {
		capiipamtest.Get(t, c, pool)
		a := pool.Status.Addresses
		return a != nil && *a == v1alpha1.PoolStatusAddresses{Total: 11, Used: 11, Free: 0} &&
			capiipamtest.HasCondition(pool.Status.Conditions, controller.AddressesValidType, "True"), capiipamtest.StatusText(pool.Status)
	})
}

// TestInvalidPool: a pool whose spec does not parse says why in CacheReady
// (the field as written), and its claims wait with PoolNotReady.
func TestInvalidPool(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "invalid")
	capiipamtest.StartManager(t, cfg, ns, "epoch-invalid", nil)
	pool := capiipamtest.NewPool(ns, "bad", v1alpha1.PoolSpec{Addresses: []string{"10.0.0.10", "10.0.0.5/24"}, Prefix: 24})
	capiipamtest.Create(t, c, pool, capiipamtest.NewClaim(ns, "m", capiipamtest.PoolRef(v1alpha1.PoolKind, "bad")))
	kubetest.Eventually(t, 15*time.Second, "CacheReady False naming the field", func() (bool, string) {
		capiipamtest.Get(t, c, pool)
		for _, cond := range pool.Status.Conditions {
			if cond.Type == "CacheReady" && cond.Status == metav1.ConditionFalse &&
				strings.Contains(cond.Message, `addresses[1] "10.0.0.5/24": prefix has host bits set (want 10.0.0.0/24)`) {
				return true, ""
			}
		}
		return false, capiipamtest.StatusText(pool.Status)
	})
	capiipamtest.WaitReason(t, c, ns, "m", controller.ReasonPoolNotReady)
	capiipamtest.Update(t, c, pool, func() { pool.Spec.Addresses = []string{"10.0.0.10", "10.0.0.0/24"} })
	if ip := capiipamtest.WaitAddress(t, c, ns, "m"); ip.Spec.Address != "10.0.0.1" {
		t.Errorf("after the fix, m got %s, want 10.0.0.1", ip.Spec.Address)
	}
}
