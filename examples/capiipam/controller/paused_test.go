package controller_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestPaused: a claim that is paused, or whose Cluster is paused (by
// spec.paused or the annotation, named by spec.clusterName or the
// cluster-name label), is left alone: no finalizer, no status, no
// IPAddress. Unpaused, it is served.
func TestPaused(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "paused")
	capiipamtest.StartManager(t, cfg, ns, "epoch-paused", nil)
	ctx := context.Background()

	bySpec := &clusterv1.Cluster{ObjectMeta: capiipamtest.MetaOf(ns, "by-spec"), Spec: clusterv1.ClusterSpec{Paused: ptr.To(true)}}
	byAnnotation := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "by-annotation",
		Annotations: map[string]string{controller.PausedAnnotation: ""}}, Spec: clusterv1.ClusterSpec{Paused: ptr.To(false)}}
	ref := capiipamtest.PoolRef(v1alpha1.PoolKind, "net")
	claimBySpec := capiipamtest.NewClaim(ns, "cluster-spec", ref)
	claimBySpec.Spec.ClusterName = "by-spec"
	claimByLabel := capiipamtest.NewClaim(ns, "cluster-annotation", ref)
	claimByLabel.Labels = map[string]string{controller.ClusterNameLabel: "by-annotation"}
	claimPaused := capiipamtest.NewClaim(ns, "claim-annotation", ref)
	claimPaused.Annotations = map[string]string{controller.PausedAnnotation: "true"}
	claimNoCluster := capiipamtest.NewClaim(ns, "no-cluster", ref)
	claimNoCluster.Spec.ClusterName = "missing"
	pausedPool := capiipamtest.NewPool(ns, "paused-net", v1alpha1.PoolSpec{Addresses: []string{"10.1.0.0/24"}, Prefix: 24})
	pausedPool.Annotations = map[string]string{controller.PausedAnnotation: ""}
	claimPausedPool := capiipamtest.NewClaim(ns, "paused-pool", capiipamtest.PoolRef(v1alpha1.PoolKind, "paused-net"))
	capiipamtest.Create(t, c, bySpec, byAnnotation, pausedPool,
		capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{Addresses: []string{"10.0.0.0/24"}, Prefix: 24}),
		claimBySpec, claimByLabel, claimPaused, claimNoCluster, claimPausedPool,
		capiipamtest.NewClaim(ns, "control", ref))

	capiipamtest.WaitAddress(t, c, ns, "control") // the manager is serving
	claims := []*ipamv1.IPAddressClaim{claimBySpec, claimByLabel, claimPaused, claimNoCluster, claimPausedPool}
	capiipamtest.Never(t, 2*time.Second, "a paused claim is touched", func() (bool, string) {
		for _, cl := range claims {
			capiipamtest.Get(t, c, cl)
			if len(cl.Finalizers) > 0 || len(cl.Status.Conditions) > 0 {
				return true, cl.Name + " has finalizers or status"
			}
			if capiipamtest.Get(t, c, &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, cl.Name)}) {
				return true, cl.Name + " has an IPAddress"
			}
		}
		return false, ""
	})
	claims = claims[:3]
	capiipamtest.Get(t, c, pausedPool)
	pausedPool.Annotations = nil
	if err := c.Update(ctx, pausedPool); err != nil {
		t.Fatal(err)
	}
	capiipamtest.WaitAddress(t, c, ns, "paused-pool")

	capiipamtest.Get(t, c, bySpec)
	bySpec.Spec.Paused = ptr.To(false)
	if err := c.Update(ctx, bySpec); err != nil {
		t.Fatal(err)
	}
	capiipamtest.Get(t, c, byAnnotation)
	byAnnotation.Annotations = nil
	if err := c.Update(ctx, byAnnotation); err != nil {
		t.Fatal(err)
	}
	capiipamtest.Get(t, c, claimPaused)
	claimPaused.Annotations = nil
	if err := c.Update(ctx, claimPaused); err != nil {
		t.Fatal(err)
	}
	for _, cl := range claims {
		capiipamtest.WaitAddress(t, c, ns, cl.Name)
	}
	capiipamtest.CheckUnique(t, c, ns)
}

// TestGlobalPoolIPv6: a claim on a GlobalVMNetIPPool gets an IPv6 address
// of it, its subnet-router anycast address and gateway left out.
func TestGlobalPoolIPv6(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "global")
	capiipamtest.StartManager(t, cfg, ns, "epoch-global", nil)

	pool := &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: ns + "-v6"}, Spec: v1alpha1.PoolSpec{
		Addresses: []string{"fd00:1::-fd00:1::1:86a0"}, Prefix: 64, Gateway: "fd00:1::1",
	}}
	capiipamtest.Create(t, c, pool, capiipamtest.NewClaim(ns, "m", capiipamtest.PoolRef(v1alpha1.GlobalPoolKind, pool.Name)))
	ip := capiipamtest.WaitAddress(t, c, ns, "m")
	if ip.Spec.Address != "fd00:1::2" || *ip.Spec.Prefix != 64 || ip.Spec.Gateway != "fd00:1::1" || ip.Spec.PoolRef.Kind != v1alpha1.GlobalPoolKind {
		t.Errorf("IPAddress spec = %+v, want fd00:1::2/64 via fd00:1::1 from the global pool", ip.Spec)
	}
	if got := ip.Labels[controller.AddressLabel]; got != "fd000001000000000000000000000002" {
		t.Errorf("address label = %q", got)
	}
	kubetest.Eventually(t, 10*time.Second, "global pool counts", func() (bool, string) {
		capiipamtest.Get(t, c, pool)
		a := pool.Status.Addresses
		return a != nil && *a == v1alpha1.PoolStatusAddresses{Total: 99999, Used: 1, Free: 99998}, capiipamtest.StatusText(pool.Status)
	})
}
