package controller_test

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestContractAddress: a claim on a VMNetIPPool gets an IPAddress of its
// name with the owner references, references, address, prefix and gateway
// of the contract, and the claim's addressRef and Ready=True; the pool
// counts it and says CacheReady with this process's epoch.
func TestContractAddress(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "contract")
	capiipamtest.StartManager(t, cfg, ns, "epoch-contract", nil)

	pool := capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{
		Addresses: []string{"10.0.0.10-10.0.0.20", "10.0.0.40"}, Prefix: 24, Gateway: "10.0.0.1",
	})
	claim := capiipamtest.NewClaim(ns, "machine-0", capiipamtest.PoolRef(v1alpha1.PoolKind, "net"))
	capiipamtest.Create(t, c, pool, claim)

	ip := capiipamtest.WaitAddress(t, c, ns, "machine-0")
	capiipamtest.Get(t, c, claim)
	capiipamtest.Get(t, c, pool)
	want := ipamv1.IPAddressSpec{
		ClaimRef: ipamv1.IPAddressClaimReference{Name: "machine-0"},
		PoolRef:  capiipamtest.PoolRef(v1alpha1.PoolKind, "net"),
		Address:  "10.0.0.10", Prefix: ptr.To[int32](24), Gateway: "10.0.0.1",
	}
	if ip.Name != claim.Name || ip.Spec.ClaimRef != want.ClaimRef || ip.Spec.PoolRef != want.PoolRef ||
		ip.Spec.Address != want.Address || *ip.Spec.Prefix != 24 || ip.Spec.Gateway != want.Gateway {
		t.Errorf("IPAddress %s spec = %+v, want %+v", ip.Name, ip.Spec, want)
	}
	if !slices.Contains(ip.Finalizers, controller.AddressFinalizer) {
		t.Errorf("IPAddress finalizers = %v, want %s", ip.Finalizers, controller.AddressFinalizer)
	}
	owners := map[string]metav1.OwnerReference{}
	for _, o := range ip.OwnerReferences {
		owners[o.Kind] = o
	}
	if o := owners["IPAddressClaim"]; o.UID != claim.UID || o.Controller == nil || !*o.Controller {
		t.Errorf("claim owner reference = %+v, want the claim as controller", o)
	}
	if o := owners[v1alpha1.PoolKind]; o.UID != pool.UID || o.BlockOwnerDeletion == nil || !*o.BlockOwnerDeletion || (o.Controller != nil && *o.Controller) {
		t.Errorf("pool owner reference = %+v, want the pool, blocking deletion, not controller", o)
	}
	if claim.Status.AddressRef.Name != "machine-0" {
		t.Errorf("claim addressRef = %+v", claim.Status.AddressRef)
	}
	if cond, _ := capiipamtest.ReadyCondition(claim); cond.Status != metav1.ConditionTrue || cond.Reason != controller.ReasonAllocated {
		t.Errorf("claim Ready = %+v, want True/%s", cond, controller.ReasonAllocated)
	}
	if len(claim.Finalizers) != 0 {
		t.Errorf("claim finalizers = %v, want none (the IPAddress's owner reference and finalizer drive the release)", claim.Finalizers)
	}
	kubetest.Eventually(t, 10*time.Second, "pool counts", func() (bool, string) {
		capiipamtest.Get(t, c, pool)
		a := pool.Status.Addresses
		return a != nil && *a == v1alpha1.PoolStatusAddresses{Total: 12, Used: 1, Free: 11}, "status " + capiipamtest.StatusText(pool.Status)
	})
	if pool.Status.CacheEpoch != "epoch-contract" || !capiipamtest.HasCondition(pool.Status.Conditions, "CacheReady", metav1.ConditionTrue) {
		t.Errorf("pool status = %s, want CacheReady True of epoch-contract", capiipamtest.StatusText(pool.Status))
	}
	if !slices.Contains(pool.Finalizers, controller.PoolFinalizer) {
		t.Errorf("pool finalizers = %v", pool.Finalizers)
	}

	// Deleting the claim (it goes at once) deletes its IPAddress, and the
	// address is free again.
	if err := c.Delete(context.Background(), claim); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, 10*time.Second, "claim and IPAddress gone", func() (bool, string) {
		return !capiipamtest.Get(t, c, claim.DeepCopy()) && !capiipamtest.Get(t, c, ip.DeepCopy()), "still there"
	})
	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "machine-1", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")))
	if ip := capiipamtest.WaitAddress(t, c, ns, "machine-1"); ip.Spec.Address != "10.0.0.10" {
		t.Errorf("after release, next claim got %s, want 10.0.0.10", ip.Spec.Address)
	}
}
