package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestAskedRace: two claims ask for one address of a global pool at once,
// on two managers. Exactly one gets it; the other gets no address and
// AddressInUse naming the address and the winner; once the winner's claim
// is deleted, the other gets the address. With a manager per namespace,
// neither sees the other's IPAddress: only the address lock decides.
func TestAskedRace(t *testing.T) {
	tests := []struct {
		name string
		// oneNamespace: both claims in one namespace, both managers serve
		// both (a split brain); otherwise a namespace and a manager each.
		oneNamespace bool
	}{
		{name: "a manager per namespace"},
		{name: "two managers serving both claims", oneNamespace: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { testAskedRace(t, tt.oneNamespace) })
	}
}

func testAskedRace(t *testing.T, oneNamespace bool) {
	const x = "10.7.1.5"
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	nsA := kubetest.CreateNamespace(t, c, "race")
	nsB := nsA
	if !oneNamespace {
		nsB = kubetest.CreateNamespace(t, c, "race")
	}
	pool := &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: nsA}, Spec: v1alpha1.PoolSpec{Addresses: []string{"10.7.1.0/24"}, Prefix: 24}}
	capiipamtest.Create(t, c, pool)
	ref := capiipamtest.PoolRef(v1alpha1.GlobalPoolKind, pool.Name)
	managers := []*capiipamtest.Manager{
		capiipamtest.StartManager(t, cfg, nsA, "epoch-race-a", nil),
		capiipamtest.StartManager(t, cfg, nsB, "epoch-race-b", nil),
	}
	claims := []*ipamv1.IPAddressClaim{askingClaim(nsA, "a", x, ref), askingClaim(nsB, "b", x, ref)}
	if err := kubetest.InParallel(2, 2, func(i int) error { return c.Create(context.Background(), claims[i]) }); err != nil {
		t.Fatal(err)
	}

	// One bound, the other waiting.
	var winner, loser *ipamv1.IPAddressClaim
	kubetest.Eventually(t, 30*time.Second, "one claim bound", func() (bool, string) {
		for i, cl := range claims {
			capiipamtest.Get(t, c, cl)
			if cl.Status.AddressRef.Name != "" {
				winner, loser = cl, claims[1-i]
				return true, ""
			}
		}
		return false, "neither bound"
	})
	if got := capiipamtest.WaitAddress(t, c, winner.Namespace, winner.Name).Spec.Address; got != x {
		t.Fatalf("claim %s/%s got %s, want %s", winner.Namespace, winner.Name, got, x)
	}
	cond := capiipamtest.WaitReason(t, c, loser.Namespace, loser.Name, controller.ReasonAddressInUse)
	holder := winner.Namespace + "/" + winner.Name
	if !strings.Contains(cond.Message, x) || !strings.Contains(cond.Message, holder) {
		t.Errorf("claim %s/%s: message %q, want it to name %s and %s", loser.Namespace, loser.Name, cond.Message, x, holder)
	}
	capiipamtest.Never(t, 2*time.Second, "the loser given another address", func() (bool, string) {
		ip := &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(loser.Namespace, loser.Name)}
		return capiipamtest.Get(t, c, ip), "IPAddress of " + ip.Spec.Address
	})
	losses := managers[0].Losses.Load() + managers[1].Losses.Load()
	if !oneNamespace && losses == 0 {
		t.Errorf("no address lock found held by another: the lock did not decide")
	}

	// The winner goes: the address is the other's.
	start := time.Now()
	if err := c.Delete(context.Background(), winner); err != nil {
		t.Fatal(err)
	}
	got := capiipamtest.WaitAddress(t, c, loser.Namespace, loser.Name).Spec.Address
	t.Logf("%s/%s won, %s/%s found %s taken (locks found another's: %d), then got it %v after the winner's deletion",
		winner.Namespace, winner.Name, loser.Namespace, loser.Name, x, losses, time.Since(start).Round(100*time.Millisecond))
	if diff := cmp.Diff(x, got); diff != "" {
		t.Errorf("the loser's address once the winner is gone (-want +got):\n%s", diff)
	}
	for _, ns := range []string{nsA, nsB} {
		capiipamtest.CheckUnique(t, c, ns)
	}
}
