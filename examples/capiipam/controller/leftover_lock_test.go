package controller_test

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestLeftoverLocks: what a claim finds when the address it picks is
// locked by a lock a stopped process left, by what the lock's holder is.
// Each case has its own pool; the lock is there before the claim.
func TestLeftoverLocks(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ns := kubetest.CreateNamespace(t, c, "leftover")
	// refused counts, by claim, the locks the provider found taken.
	var mu sync.Mutex
	refused := map[string]int{}
	startManagerHooked(t, cfg, ns, "epoch-leftover", nil, 16, func(obj client.Object, err error) {
		if l, ok := obj.(*v1alpha1.VMNetIPAddressLock); ok && l.Spec.HolderNamespace == ns && apierrors.IsAlreadyExists(err) {
			mu.Lock()
			refused[l.Spec.HolderName]++
			mu.Unlock()
		}
	})
	// tries fails t if the claim found a lock taken more than max times.
	tries := func(t *testing.T, claim string, max int) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if n := refused[claim]; n > max {
			t.Errorf("%s found a lock taken %d times, want at most %d", claim, n, max)
		}
	}
	x := netip.MustParseAddr("10.6.0.5")

	t.Run("the claim's own lock (stopped between its lock and its IPAddress)", func(t *testing.T) {
		// Adopted: the claim gets the locked address.
		create(t, c, newPool(ns, "own", v1alpha1.PoolSpec{Addresses: []string{"10.6.0.5"}, Prefix: 24}),
			controller.NewLock(v1alpha1.PoolKind, ns, "own", x, types.NamespacedName{Namespace: ns, Name: "own-claim"}))
		create(t, c, newClaim(ns, "own-claim", poolRef(v1alpha1.PoolKind, "own")))
		if got := waitAddress(t, c, ns, "own-claim").Spec.Address; got != x.String() {
			t.Errorf("own-claim got %s, want the address of its lock, %s", got, x)
		}
		checkLock(t, c, ns, "own", x, "own-claim")
	})

	t.Run("a holder that holds another address (stopped, then served again)", func(t *testing.T) {
		// Stale: its creator can never create the holder under it, so
		// it is deleted and the address handed out.
		create(t, c, newPool(ns, "moved", v1alpha1.PoolSpec{Addresses: []string{"10.6.0.5-10.6.0.6"}, Prefix: 24}),
			&ipamv1.IPAddress{ObjectMeta: metaOf(ns, "moved-holder"), Spec: ipamv1.IPAddressSpec{
				ClaimRef: ipamv1.IPAddressClaimReference{Name: "moved-holder"},
				PoolRef:  poolRef(v1alpha1.PoolKind, "moved"),
				Address:  "10.6.0.6", Prefix: ptr.To[int32](24),
			}},
			controller.NewLock(v1alpha1.PoolKind, ns, "moved", x, types.NamespacedName{Namespace: ns, Name: "moved-holder"}))
		create(t, c, newClaim(ns, "moved-claim", poolRef(v1alpha1.PoolKind, "moved")))
		if got := waitAddress(t, c, ns, "moved-claim").Spec.Address; got != x.String() {
			t.Errorf("moved-claim got %s, want %s, freed from the stale lock", got, x)
		}
		checkLock(t, c, ns, "moved", x, "moved-claim")
	})

	t.Run("a holder that does not exist, another address free", func(t *testing.T) {
		// The claim takes the other address, at once: the locked one is
		// marked taken in the pool, not tried again and again.
		create(t, c, newPool(ns, "next", v1alpha1.PoolSpec{Addresses: []string{"10.6.0.5-10.6.0.6"}, Prefix: 24}),
			controller.NewLock(v1alpha1.PoolKind, ns, "next", x, types.NamespacedName{Namespace: ns, Name: "next-holder"}))
		create(t, c, newClaim(ns, "next-claim", poolRef(v1alpha1.PoolKind, "next")))
		if got := waitAddress(t, c, ns, "next-claim").Spec.Address; got != "10.6.0.6" {
			t.Errorf("next-claim got %s, want 10.6.0.6, the address no lock holds", got)
		}
		tries(t, "next-claim", 1)
		checkLock(t, c, ns, "next", x, "next-holder")
	})

	t.Run("a holder that does not exist (stopped, then its claim deleted)", func(t *testing.T) {
		// It may be a create in flight, so the lock stays and its
		// address is not handed out, until the lock is deleted by hand.
		l := controller.NewLock(v1alpha1.PoolKind, ns, "gone", x, types.NamespacedName{Namespace: ns, Name: "gone-holder"})
		create(t, c, newPool(ns, "gone", v1alpha1.PoolSpec{Addresses: []string{"10.6.0.5"}, Prefix: 24}), l)
		create(t, c, newClaim(ns, "gone-claim", poolRef(v1alpha1.PoolKind, "gone")))
		waitReason(t, c, ns, "gone-claim", controller.ReasonPoolExhausted)
		// Tried again when a resync of the pool drops the mark: at most
		// every 10 s, not at every retry (250 ms here).
		time.Sleep(3 * time.Second)
		tries(t, "gone-claim", 2)
		checkLock(t, c, ns, "gone", x, "gone-holder")
		if err := c.Delete(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		if got := waitAddress(t, c, ns, "gone-claim").Spec.Address; got != x.String() {
			t.Errorf("gone-claim got %s, want %s, freed by the lock's deletion", got, x)
		}
		checkLock(t, c, ns, "gone", x, "gone-claim")
	})
	checkUnique(t, c, ns)
}

// checkLock fails t unless the lock of addr in the VMNetIPPool ns/pool is
// held by ns/holder.
func checkLock(t *testing.T, c client.Client, ns, pool string, addr netip.Addr, holder string) {
	t.Helper()
	l := controller.NewLock(v1alpha1.PoolKind, ns, pool, addr, types.NamespacedName{})
	if !get(t, c, l) {
		t.Fatalf("no lock of %s in pool %s", addr, pool)
	}
	if got, want := fmt.Sprintf("%s/%s", l.Spec.HolderNamespace, l.Spec.HolderName), ns+"/"+holder; got != want {
		t.Errorf("the lock of %s in pool %s is held by %s, want %s", addr, pool, got, want)
	}
}
