package controller_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestReleaseClusterPaused: the IPAddress of a claim deleted while its
// Cluster is paused is deleted (as the garbage collector would) but not
// released: its finalizer, its lock and its address stay until the
// Cluster is unpaused. The IPAddress carries the Cluster's name (the
// claim's spec.clusterName) in its cluster-name label: the claim is gone.
func TestReleaseClusterPaused(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "releasepaused")
	capiipamtest.StartManager(t, cfg, ns, "epoch-releasepaused", nil)
	cluster := &clusterv1.Cluster{ObjectMeta: capiipamtest.MetaOf(ns, "workload"), Spec: clusterv1.ClusterSpec{Paused: ptr.To(false)}}
	claim := capiipamtest.NewClaim(ns, "m", capiipamtest.PoolRef(v1alpha1.PoolKind, "net"))
	claim.Spec.ClusterName = cluster.Name
	capiipamtest.Create(t, c, cluster, capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{Addresses: []string{"10.6.0.1-10.6.0.4"}, Prefix: 24}), claim)
	ip := capiipamtest.WaitAddress(t, c, ns, "m")
	if got := ip.Labels[controller.ClusterNameLabel]; got != cluster.Name {
		t.Errorf("IPAddress cluster-name label %q, want %q", got, cluster.Name)
	}

	capiipamtest.Get(t, c, cluster)
	cluster.Spec.Paused = ptr.To(true)
	if err := c.Update(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, claim); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, 10*time.Second, "IPAddress deleted, kept by its finalizer", func() (bool, string) {
		return capiipamtest.Get(t, c, ip) && !ip.DeletionTimestamp.IsZero(), fmt.Sprintf("deletionTimestamp %v", ip.DeletionTimestamp)
	})
	capiipamtest.Never(t, 2*time.Second, "released while the Cluster is paused", func() (bool, string) {
		return !capiipamtest.Get(t, c, ip.DeepCopy()) || len(locksOf(t, c, ns)) == 0, "IPAddress or lock gone"
	})
	capiipamtest.Get(t, c, cluster)
	cluster.Spec.Paused = ptr.To(false)
	if err := c.Update(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	waitReleased(t, c, ns, nil, "m")
}

// TestReleaseRecreatedClaim: a claim deleted and made again under the same
// name while the first one's IPAddress is kept for the reuse grace period
// waits (Ready=False, AllocationFailed, saying why) until that IPAddress
// is released, then gets an IPAddress of its own, owned by it.
func TestReleaseRecreatedClaim(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "recreated")
	capiipamtest.StartManager(t, cfg, ns, "epoch-recreated", nil)
	capiipamtest.Create(t, c, capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{
		Addresses: []string{"10.7.0.1-10.7.0.4"}, Prefix: 24, AddressReuseGracePeriodSeconds: ptr.To(int32(3)),
	}), capiipamtest.NewClaim(ns, "m", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	first := capiipamtest.WaitAddress(t, c, ns, "m")
	if err := c.Delete(ctx, &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, "m")}); err != nil {
		t.Fatal(err)
	}
	again := capiipamtest.NewClaim(ns, "m", capiipamtest.PoolRef(v1alpha1.PoolKind, "net"))
	capiipamtest.Create(t, c, again)
	cond := capiipamtest.WaitReason(t, c, ns, "m", controller.ReasonAllocationFailed)
	if !strings.Contains(cond.Message, "of an earlier claim of this name is being released") {
		t.Errorf("Ready message %q", cond.Message)
	}
	ip := capiipamtest.WaitAddress(t, c, ns, "m")
	if ip.UID == first.UID {
		t.Fatalf("the new claim was given the first claim's IPAddress %s", ip.UID)
	}
	if ref := metav1.GetControllerOf(ip); ref == nil || ref.UID != again.UID {
		t.Errorf("IPAddress controller owner %+v, want the new claim %s", ref, again.UID)
	}
	if got, want := locksOf(t, c, ns), []string{ip.Spec.Address + " m"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("locks %q, want %q", got, want)
	}
}

// TestReleaseForeground: a claim deleted with foreground propagation stays
// (the garbage collector's foregroundDeletion finalizer) until its
// IPAddress is gone: the claim's own reconcile releases it. Envtest runs
// no garbage collector, so the test removes that finalizer afterwards.
func TestReleaseForeground(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "foreground")
	capiipamtest.StartManager(t, cfg, ns, "epoch-foreground", nil)
	claim := capiipamtest.NewClaim(ns, "m", capiipamtest.PoolRef(v1alpha1.PoolKind, "net"))
	capiipamtest.Create(t, c, capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{Addresses: []string{"10.8.0.1-10.8.0.4"}, Prefix: 24}), claim)
	capiipamtest.WaitAddress(t, c, ns, "m")
	if err := c.Delete(ctx, claim, client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
		t.Fatal(err)
	}
	if !capiipamtest.Get(t, c, claim) || claim.DeletionTimestamp.IsZero() {
		t.Fatalf("claim after a foreground delete: %+v, want it kept, being deleted", claim.ObjectMeta)
	}
	waitReleased(t, c, ns, nil, "m")
	capiipamtest.Get(t, c, claim)
	claim.Finalizers = nil
	if err := c.Update(ctx, claim); err != nil {
		t.Fatal(err)
	}
	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "next", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	if got := capiipamtest.WaitAddress(t, c, ns, "next").Spec.Address; got != "10.8.0.1" {
		t.Errorf("next claim got %s, want the freed 10.8.0.1", got)
	}
}

// TestRecreatedMidReconcile: a claim deleted and made again under its name
// while the provider serves the first (between its IPAddress's create and
// its status write). The status meant for the first must not land on the
// second: that would show the second Ready with an IPAddress it does not
// own, which is then released (and its address handed out again). The
// second claim's Ready goes False while the first's IPAddress is released,
// then True with its own, and never True before.
func TestRecreatedMidReconcile(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "midreconcile")
	w, err := c.Watch(ctx, &ipamv1.IPAddressClaimList{}, client.InNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	// readies records, for each UID of claim m, its Ready condition at
	// every change of it.
	var (
		mu      sync.Mutex
		readies = map[types.UID][]string{}
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			cl, ok := ev.Object.(*ipamv1.IPAddressClaim)
			if !ok || cl.Name != "m" {
				continue
			}
			cond, ok := capiipamtest.ReadyCondition(cl)
			if !ok {
				continue
			}
			r := string(cond.Status) + "/" + cond.Reason
			mu.Lock()
			if seq := readies[cl.UID]; len(seq) == 0 || seq[len(seq)-1] != r {
				readies[cl.UID] = append(seq, r)
			}
			mu.Unlock()
		}
	}()
	defer func() { w.Stop(); <-done }()

	var (
		once    sync.Once
		hooked  = make(chan struct{}) // closed once second and hookErr are set
		second  *ipamv1.IPAddressClaim
		hookErr error
	)
	hook := func(obj client.Object, err error) {
		if ip, ok := obj.(*ipamv1.IPAddress); ok && err == nil && ip.Namespace == ns && ip.Name == "m" {
			once.Do(func() {
				defer close(hooked)
				if hookErr = c.Delete(ctx, &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, "m")}); hookErr != nil {
					return
				}
				second = capiipamtest.NewClaim(ns, "m", capiipamtest.PoolRef(v1alpha1.PoolKind, "net"))
				hookErr = c.Create(ctx, second)
			})
		}
	}
	capiipamtest.StartManagerHooked(t, cfg, ns, "epoch-midreconcile", nil, 16, hook)
	capiipamtest.Create(t, c, capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{
		Addresses: []string{"10.7.1.1-10.7.1.4"}, Prefix: 24, AddressReuseGracePeriodSeconds: ptr.To(int32(3)),
	}), capiipamtest.NewClaim(ns, "m", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	select {
	case <-hooked:
	case <-time.After(20 * time.Second):
		t.Fatal("after 20s, the first claim's IPAddress is not created")
	}
	if hookErr != nil {
		t.Fatalf("delete and make again the claim after its IPAddress's create: %v", hookErr)
	}
	ip := capiipamtest.WaitAddress(t, c, ns, "m")
	if ref := metav1.GetControllerOf(ip); ref == nil || ref.UID != second.UID {
		t.Fatalf("IPAddress controller owner %+v, want the second claim %s", ref, second.UID)
	}
	want := []string{"False/" + controller.ReasonAllocationFailed, "True/" + controller.ReasonAllocated}
	kubetest.Eventually(t, 10*time.Second, "the watch to see the second claim Ready", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		got := readies[second.UID]
		return len(got) > 0 && got[len(got)-1] == want[1], fmt.Sprint(got)
	})
	mu.Lock()
	got := readies[second.UID]
	mu.Unlock()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the second claim's Ready went through %v, want %v", got, want)
	}
	capiipamtest.CheckUnique(t, c, ns)
}
