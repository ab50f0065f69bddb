package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// outcome is what a claim ends with: its address, or its Ready=False.
type outcome struct {
	Address, Reason, Message string
}

// askingClaim is a claim of ref, annotated with the address it asks for
// unless asked is "".
func askingClaim(ns, name, asked string, ref ipamv1.IPPoolReference) *ipamv1.IPAddressClaim {
	claim := capiipamtest.NewClaim(ns, name, ref)
	if asked != "" {
		claim.Annotations = map[string]string{v1alpha1.AddressAnnotation: asked}
	}
	return claim
}

// annotate sets (or, with "", removes) the claim's address annotation,
// as kubectl annotate --overwrite does.
func annotate(t *testing.T, c client.Client, ns, name, asked string) {
	t.Helper()
	value := any(asked)
	if asked == "" {
		value = nil
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{v1alpha1.AddressAnnotation: value}}})
	claim := &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, name)}
	if err := c.Patch(context.Background(), claim, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
}

// TestAskedAddresses: a claim that asks for an address, by its
// annotation or by the pool's spec.preAllocations, gets that address or
// none, with a reason and a message that say why: free, taken (then
// served once it is released), outside the pool, excluded, the gateway,
// the subnet's network address, an annotation that is no address, a
// pre-allocation the annotation contradicts (served once they agree), an
// address pre-allocated to another claim. A bound claim keeps its
// address whatever its annotation or the pool's pre-allocations say
// later.
func TestAskedAddresses(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "asked")
	capiipamtest.StartManager(t, cfg, ns, "epoch-asked", nil)
	pool := capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{
		Addresses: []string{"10.5.0.0/28", "10.5.0.20-10.5.0.29"}, Prefix: 24, Gateway: "10.5.0.1", ExcludedAddresses: []string{"10.5.0.8"},
		PreAllocations: map[string]v1alpha1.PreAllocatedAddress{"pre": "10.5.0.9", "pre-agree": "10.5.0.10", "pre-conflict": "10.5.0.11", "absent": "10.5.0.13"},
	})
	ref := capiipamtest.PoolRef(v1alpha1.PoolKind, "net")
	capiipamtest.Create(t, c, pool, askingClaim(ns, "holder", "10.5.0.6", ref))
	capiipamtest.WaitAddress(t, c, ns, "holder")

	key := "VMNetIPPool " + ns + "/net"
	byAnnotation := "annotation " + v1alpha1.AddressAnnotation + " asks " + key + " for "
	tests := []struct {
		name, claim, asked string
		want               outcome
	}{
		{name: "free", claim: "free", asked: "10.5.0.5", want: outcome{Address: "10.5.0.5"}},
		{name: "any address: the lowest not asked for", claim: "any", want: outcome{Address: "10.5.0.2"}},
		{name: "taken", claim: "taken", asked: "10.5.0.6", want: outcome{Reason: controller.ReasonAddressInUse,
			Message: byAnnotation + "10.5.0.6, which IPAddress " + ns + "/holder holds; waiting for its release"}},
		{name: "in a gap of the addresses", claim: "gap", asked: "10.5.0.16", want: outcome{Reason: controller.ReasonAddressNotInPool,
			Message: byAnnotation + "10.5.0.16, which is not in spec.addresses"}},
		{name: "outside the subnet", claim: "outside", asked: "10.6.0.1", want: outcome{Reason: controller.ReasonAddressNotInPool,
			Message: byAnnotation + "10.6.0.1, which is not in spec.addresses"}},
		{name: "excluded", claim: "excluded", asked: "10.5.0.8", want: outcome{Reason: controller.ReasonAddressExcluded,
			Message: byAnnotation + "10.5.0.8, which is in spec.excludedAddresses[0] (10.5.0.8)"}},
		{name: "gateway", claim: "gateway", asked: "10.5.0.1", want: outcome{Reason: controller.ReasonAddressExcluded,
			Message: byAnnotation + "10.5.0.1, which is spec.gateway"}},
		{name: "the subnet's network address", claim: "network", asked: "10.5.0.0", want: outcome{Reason: controller.ReasonAddressExcluded,
			Message: byAnnotation + "10.5.0.0, which is the network address of 10.5.0.0/24, handed out only with spec.allocateReservedIPAddresses"}},
		{name: "not an address", claim: "invalid", asked: "10.5.0.300", want: outcome{Reason: controller.ReasonAddressInvalid,
			Message: `annotation ipam.vmnetkit.dev/address: ipam: ParseAddr("10.5.0.300"): IPv4 field has value >255: invalid address`}},
		{name: "pre-allocated", claim: "pre", want: outcome{Address: "10.5.0.9"}},
		{name: "pre-allocated, the annotation agrees", claim: "pre-agree", asked: "10.5.0.10", want: outcome{Address: "10.5.0.10"}},
		{name: "pre-allocated, the annotation disagrees", claim: "pre-conflict", asked: "10.5.0.12", want: outcome{Reason: controller.ReasonAddressConflict,
			Message: "annotation ipam.vmnetkit.dev/address asks for 10.5.0.12, but spec.preAllocations of " + key + " gives this claim 10.5.0.11: change or remove one of them"}},
		{name: "pre-allocated to another claim", claim: "wants-absent", asked: "10.5.0.13", want: outcome{Reason: controller.ReasonAddressInUse,
			Message: byAnnotation + "10.5.0.13, which spec.preAllocations gives claim " + ns + "/absent"}},
	}
	for _, tt := range tests { // all at once: they race for the pool
		capiipamtest.Create(t, c, askingClaim(ns, tt.claim, tt.asked, ref))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got outcome
			if tt.want.Address != "" {
				got.Address = capiipamtest.WaitAddress(t, c, ns, tt.claim).Spec.Address
			} else {
				cond := capiipamtest.WaitReason(t, c, ns, tt.claim, tt.want.Reason)
				got.Reason, got.Message = cond.Reason, cond.Message
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("claim %s (-want +got):\n%s", tt.claim, diff)
			}
		})
	}
	capiipamtest.CheckUnique(t, c, ns)

	// Causes go away: the address is released, the annotation agrees.
	if err := c.Delete(context.Background(), &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, "holder")}); err != nil {
		t.Fatal(err)
	}
	annotate(t, c, ns, "pre-conflict", "10.5.0.11")
	for claim, want := range map[string]string{"taken": "10.5.0.6", "pre-conflict": "10.5.0.11"} {
		if got := capiipamtest.WaitAddress(t, c, ns, claim).Spec.Address; got != want {
			t.Errorf("claim %s got %s, want %s", claim, got, want)
		}
	}

	// Bound claims keep their addresses whatever is asked later.
	annotate(t, c, ns, "free", "10.5.0.7")
	capiipamtest.Get(t, c, pool)
	base := pool.DeepCopy()
	pool.Spec.PreAllocations["pre"] = "10.5.0.14"
	if err := c.Patch(context.Background(), pool, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	capiipamtest.Never(t, 3*time.Second, "a bound claim's address rewritten", func() (bool, string) {
		for claim, want := range map[string]string{"free": "10.5.0.5", "pre": "10.5.0.9"} {
			c0 := &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: claim}}
			capiipamtest.Get(t, c, c0)
			cond, _ := capiipamtest.ReadyCondition(c0)
			ip := &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, claim)}
			if !capiipamtest.Get(t, c, ip) || ip.Spec.Address != want || c0.Status.AddressRef.Name != claim || cond.Status != metav1.ConditionTrue {
				return true, fmt.Sprintf("claim %s: %+v, IPAddress %q", claim, c0.Status, ip.Spec.Address)
			}
		}
		return false, ""
	})
}
