package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestReuseGracePeriod: a deleted claim goes at once; its IPAddress (and
// the address) is kept for addressReuseGracePeriodSeconds after the
// IPAddress's deletion timestamp, which the provider sets when it finds
// the claim gone, across a restart of the manager; a claim made meanwhile
// gets another address; afterwards the address is free again.
func TestReuseGracePeriod(t *testing.T) {
	const grace = 4 * time.Second
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "grace")
	m := capiipamtest.StartManager(t, cfg, ns, "epoch-grace-1", nil)

	capiipamtest.Create(t, c, capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{
		Addresses: []string{"10.0.0.1-10.0.0.10"}, Prefix: 24, AddressReuseGracePeriodSeconds: ptr.To(int32(grace / time.Second)),
	}), capiipamtest.NewClaim(ns, "old", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	if ip := capiipamtest.WaitAddress(t, c, ns, "old"); ip.Spec.Address != "10.0.0.1" {
		t.Fatalf("old got %s, want 10.0.0.1", ip.Spec.Address)
	}
	old := &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, "old")}
	if err := c.Delete(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	ip := &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, "old")}
	kubetest.Eventually(t, 10*time.Second, "IPAddress deleted, kept by its finalizer", func() (bool, string) {
		return capiipamtest.Get(t, c, ip) && !ip.DeletionTimestamp.IsZero(), fmt.Sprintf("deletionTimestamp %v, finalizers %v", ip.DeletionTimestamp, ip.Finalizers)
	})
	end := ip.DeletionTimestamp.Add(grace)

	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "during", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	if ip := capiipamtest.WaitAddress(t, c, ns, "during"); ip.Spec.Address != "10.0.0.2" {
		t.Errorf("a claim made during the grace period got %s, want 10.0.0.2", ip.Spec.Address)
	}
	m.Stop()
	capiipamtest.StartManager(t, cfg, ns, "epoch-grace-2", nil)
	released := func() (bool, string) {
		return !capiipamtest.Get(t, c, ip.DeepCopy()), "IPAddress gone"
	}
	// Deletion timestamps have a resolution of one second.
	capiipamtest.Never(t, time.Until(end.Add(-1500*time.Millisecond)), "released during the grace period", released)
	kubetest.Eventually(t, grace+10*time.Second, "released after the grace period", func() (bool, string) {
		ok, _ := released()
		return ok, "IPAddress still there"
	})
	if time.Now().Before(end.Add(-time.Second)) {
		t.Errorf("released at %v, before the grace period's end %v", time.Now(), end)
	}
	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "after", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	if ip := capiipamtest.WaitAddress(t, c, ns, "after"); ip.Spec.Address != "10.0.0.1" {
		t.Errorf("a claim made after the grace period got %s, want the freed 10.0.0.1", ip.Spec.Address)
	}
}
