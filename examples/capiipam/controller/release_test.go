package controller_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// locksOf returns the locks of the pools of namespace ns, as
// "address holder", sorted.
func locksOf(t testing.TB, c client.Client, ns string) []string {
	t.Helper()
	var list v1alpha1.VMNetIPAddressLockList
	if err := c.List(context.Background(), &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range list.Items {
		if l.Spec.PoolNamespace == ns {
			out = append(out, l.Spec.Address+" "+l.Spec.HolderName)
		}
	}
	sort.Strings(out)
	return out
}

// waitReleased waits until the IPAddresses of ns named are gone and the
// locks of ns are exactly locks.
func waitReleased(t testing.TB, c client.Client, ns string, locks []string, names ...string) {
	t.Helper()
	kubetest.Eventually(t, 20*time.Second, fmt.Sprintf("IPAddresses %v and their locks gone", names), func() (bool, string) {
		for _, n := range names {
			ip := &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, n)}
			if capiipamtest.Get(t, c, ip) {
				return false, fmt.Sprintf("IPAddress %s: deletionTimestamp %v, finalizers %v", n, ip.DeletionTimestamp, ip.Finalizers)
			}
		}
		got := locksOf(t, c, ns)
		return fmt.Sprint(got) == fmt.Sprint(locks), fmt.Sprintf("locks %q, want %q", got, locks)
	})
}

// TestReleaseOldClaimFinalizer: a claim that carries ClaimFinalizer (an
// older version of this provider put it there, or the in-cluster provider
// before the switch) is still released when deleted: its IPAddress and
// lock go, then the finalizer and the claim, and the address is free
// again.
func TestReleaseOldClaimFinalizer(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "oldfinalizer")
	capiipamtest.StartManager(t, cfg, ns, "epoch-oldfinalizer", nil)
	claim := capiipamtest.NewClaim(ns, "old", capiipamtest.PoolRef(v1alpha1.PoolKind, "net"))
	claim.Finalizers = []string{controller.ClaimFinalizer}
	capiipamtest.Create(t, c, capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{Addresses: []string{"10.3.0.0/24"}, Prefix: 24}), claim)
	ip := capiipamtest.WaitAddress(t, c, ns, "old")
	if got, want := locksOf(t, c, ns), []string{ip.Spec.Address + " old"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("locks %q, want %q", got, want)
	}
	if err := c.Delete(context.Background(), claim); err != nil {
		t.Fatal(err)
	}
	waitReleased(t, c, ns, nil, "old")
	kubetest.Eventually(t, 10*time.Second, "claim gone", func() (bool, string) {
		cl := claim.DeepCopy()
		return !capiipamtest.Get(t, c, cl), fmt.Sprintf("finalizers %v", cl.Finalizers)
	})
	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "next", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	if got := capiipamtest.WaitAddress(t, c, ns, "next").Spec.Address; got != ip.Spec.Address {
		t.Errorf("next claim got %s, want the freed %s", got, ip.Spec.Address)
	}
}

// TestReleaseWhileDown: claims deleted while no provider runs leave their
// IPAddresses behind, one deleted as the garbage collector deletes it
// (held by AddressFinalizer), one not deleted at all (envtest runs no
// garbage collector). The next process counts both as allocated until it
// has released them, then hands their addresses out again; the claim that
// stays keeps its address and is not written to.
func TestReleaseWhileDown(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "down")
	m := capiipamtest.StartManager(t, cfg, ns, "epoch-down-1", nil)
	capiipamtest.Create(t, c, capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{Addresses: []string{"10.4.0.1-10.4.0.3"}, Prefix: 24}))
	for i, n := range []string{"collected", "left", "keep"} {
		capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, n, capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
		if got, want := capiipamtest.WaitAddress(t, c, ns, n).Spec.Address, fmt.Sprintf("10.4.0.%d", i+1); got != want {
			t.Fatalf("%s got %s, want %s", n, got, want)
		}
	}
	m.Stop()
	keep := &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, "keep")}
	capiipamtest.Get(t, c, keep)
	for _, n := range []string{"collected", "left"} {
		if err := c.Delete(ctx, &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, n)}); err != nil {
			t.Fatal(err)
		}
	}
	collected := &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, "collected")}
	if err := c.Delete(ctx, collected); err != nil {
		t.Fatal(err)
	}
	if !capiipamtest.Get(t, c, collected) || collected.DeletionTimestamp.IsZero() {
		t.Fatalf("IPAddress collected: want it kept by its finalizer, being deleted; got %+v", collected.ObjectMeta)
	}

	capiipamtest.StartManager(t, cfg, ns, "epoch-down-2", nil)
	waitReleased(t, c, ns, []string{"10.4.0.3 keep"}, "collected", "left")
	got := map[string]bool{}
	for _, n := range []string{"new-0", "new-1"} {
		capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, n, capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	}
	for _, n := range []string{"new-0", "new-1"} {
		got[capiipamtest.WaitAddress(t, c, ns, n).Spec.Address] = true
	}
	if !got["10.4.0.1"] || !got["10.4.0.2"] {
		t.Errorf("new claims got %v, want the freed 10.4.0.1 and 10.4.0.2", got)
	}
	rv := keep.ResourceVersion
	if capiipamtest.Get(t, c, keep); keep.ResourceVersion != rv {
		t.Errorf("the bound claim keep was written to (resourceVersion %s, was %s)", keep.ResourceVersion, rv)
	}
	capiipamtest.CheckUnique(t, c, ns)
}

// TestReleaseClaimDeletedMidCreate: a claim deleted between its address's
// lock and its IPAddress gets that IPAddress anyway (owned by a claim that
// is gone); it is deleted and released, its lock deleted, and the address
// handed out again.
func TestReleaseClaimDeletedMidCreate(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "midcreate")
	var once sync.Once
	var deleted error
	var created atomic.Bool
	hook := func(obj client.Object, err error) {
		if err != nil {
			return
		}
		switch o := obj.(type) {
		case *v1alpha1.VMNetIPAddressLock:
			if o.Spec.HolderNamespace == ns && o.Spec.HolderName == "doomed" {
				once.Do(func() { deleted = c.Delete(ctx, &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, "doomed")}) })
			}
		case *ipamv1.IPAddress:
			if o.Namespace == ns && o.Name == "doomed" {
				created.Store(true)
			}
		}
	}
	capiipamtest.StartManagerHooked(t, cfg, ns, "epoch-midcreate", nil, 16, hook)
	capiipamtest.Create(t, c, capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{Addresses: []string{"10.5.0.1-10.5.0.4"}, Prefix: 24}),
		capiipamtest.NewClaim(ns, "doomed", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	kubetest.Eventually(t, 20*time.Second, "the doomed claim's IPAddress created after its deletion", func() (bool, string) {
		return created.Load(), "not created"
	})
	once.Do(func() {}) // the hook ran: deleted is set
	if deleted != nil {
		t.Fatalf("delete the claim between its lock and its IPAddress: %v", deleted)
	}
	waitReleased(t, c, ns, nil, "doomed")
	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "next", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	if got := capiipamtest.WaitAddress(t, c, ns, "next").Spec.Address; got != "10.5.0.1" {
		t.Errorf("next claim got %s, want the freed 10.5.0.1", got)
	}
}
