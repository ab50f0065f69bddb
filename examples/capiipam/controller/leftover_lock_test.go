package controller_test

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestLeftoverLocks: what a claim finds when the address it picks is
// locked by a lock a stopped process left, by what the lock's holder is.
// Each case has its own pool; the lock is there before the claim.
func TestLeftoverLocks(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "leftover")
	// refused counts, by claim, the lock creates refused (AlreadyExists).
	var mu sync.Mutex
	refused := map[string]int{}
	// The provider's clock runs 2 minutes ahead of the API server's, so
	// that the locks the test makes are old enough for the Warning about
	// a lock whose holder does not exist.
	// Its monotonic clock runs 10 times as fast, so that a lock without
	// its holder is reclaimed after 6 s rather than a minute.
	ahead := func() time.Time { return time.Now().Add(2 * time.Minute) }
	capiipamtest.StartManagerSince(t, cfg, ns, "epoch-leftover", ahead, capiipamtest.Faster(10), 16, func(obj client.Object, err error) {
		if l, ok := obj.(*v1alpha1.VMNetIPAddressLock); ok && l.Spec.HolderNamespace == ns && apierrors.IsAlreadyExists(err) {
			mu.Lock()
			refused[l.Spec.HolderName]++
			mu.Unlock()
		}
	})
	// tries fails t if the claim's lock creates were refused more than max times.
	tries := func(t *testing.T, claim string, max int) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if n := refused[claim]; n > max {
			t.Errorf("%s: %d lock creates refused, want at most %d", claim, n, max)
		}
	}
	x := netip.MustParseAddr("10.6.0.5")

	for i, tc := range []struct {
		name      string
		addresses string // the pool's
		holder    string // of the lock of x; "" for the claim itself
		holderAt  string // the address of the holder's IPAddress; "" for none
		want      string // the claim's address
		// wantHolder holds the lock of x after; "" for the claim.
		wantHolder string
	}{{
		// Adopted: the claim gets the locked address.
		name:      "the claim's own lock (stopped between its lock and its IPAddress)",
		addresses: "10.6.0.5", want: "10.6.0.5",
	}, {
		// Stale: its creator can never create the holder under it, so it
		// is deleted and the address handed out.
		name:      "a holder that holds another address (stopped, then served again)",
		addresses: "10.6.0.5-10.6.0.6", holder: "moved", holderAt: "10.6.0.6", want: "10.6.0.5",
	}, {
		// The claim takes the other address at once: the locked one is
		// marked taken in the pool, not tried again and again.
		name:      "a holder that does not exist, another address free",
		addresses: "10.6.0.5-10.6.0.6", holder: "next", want: "10.6.0.6", wantHolder: "next",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pool, claim := fmt.Sprintf("pool-%d", i), fmt.Sprintf("claim-%d", i)
			holder := cmp.Or(tc.holder, claim)
			capiipamtest.Create(t, c, capiipamtest.NewPool(ns, pool, v1alpha1.PoolSpec{Addresses: []string{tc.addresses}, Prefix: 24}),
				controller.NewLock(v1alpha1.PoolKind, ns, pool, x, types.NamespacedName{Namespace: ns, Name: holder}))
			if tc.holderAt != "" {
				capiipamtest.Create(t, c, &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, holder), Spec: ipamv1.IPAddressSpec{
					ClaimRef: ipamv1.IPAddressClaimReference{Name: holder},
					PoolRef:  capiipamtest.PoolRef(v1alpha1.PoolKind, pool),
					Address:  tc.holderAt, Prefix: ptr.To[int32](24),
				}})
			}
			capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, claim, capiipamtest.PoolRef(v1alpha1.PoolKind, pool)))
			if got := capiipamtest.WaitAddress(t, c, ns, claim).Spec.Address; got != tc.want {
				t.Errorf("the claim got %s, want %s", got, tc.want)
			}
			tries(t, claim, 1)
			checkLock(t, c, ns, pool, x, cmp.Or(tc.wantHolder, claim))
		})
	}

	t.Run("a holder that does not exist (stopped, then its claim deleted)", func(t *testing.T) {
		// It may be a create in flight, so the lock stays and its
		// address is not handed out, until the provider has seen it
		// without its holder for reclaim.OrphanAge by its own clock and
		// reclaims it (package reclaim).
		l := controller.NewLock(v1alpha1.PoolKind, ns, "gone", x, types.NamespacedName{Namespace: ns, Name: "gone-holder"})
		capiipamtest.Create(t, c, capiipamtest.NewPool(ns, "gone", v1alpha1.PoolSpec{Addresses: []string{"10.6.0.5"}, Prefix: 24}), l)
		capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "gone-claim", capiipamtest.PoolRef(v1alpha1.PoolKind, "gone")))
		capiipamtest.WaitReason(t, c, ns, "gone-claim", controller.ReasonPoolExhausted)
		// Tried again when a resync of the pool drops the mark: at most
		// every 10 s, not at every retry (250 ms here).
		time.Sleep(3 * time.Second)
		tries(t, "gone-claim", 2)
		checkLock(t, c, ns, "gone", x, "gone-holder")
		if got := capiipamtest.WaitAddress(t, c, ns, "gone-claim").Spec.Address; got != x.String() {
			t.Errorf("gone-claim got %s, want %s, freed by the lock's reclaim", got, x)
		}
		checkLock(t, c, ns, "gone", x, "gone-claim")
		kubetest.Eventually(t, 10*time.Second, "the LockReclaimed event on pool gone", func() (bool, string) {
			n := countEvents(t, c, ns, controller.ReasonLockReclaimed, "gone")
			return n == 1, fmt.Sprintf("%d events, want 1", n)
		})
	})
	capiipamtest.CheckUnique(t, c, ns)

	// A Warning on each pool with a lock whose holder does not exist, naming
	// the lock to delete; none on the others.
	kubetest.Eventually(t, 10*time.Second, "the Warnings of locks without a holder", func() (bool, string) {
		var events corev1.EventList
		if err := c.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range events.Items {
			if e.Reason == controller.ReasonLockWithoutHolder && e.Type == corev1.EventTypeWarning {
				l := controller.NewLock(v1alpha1.PoolKind, ns, e.InvolvedObject.Name, x, types.NamespacedName{})
				got = append(got, fmt.Sprintf("%s %s %t", e.InvolvedObject.Kind, e.InvolvedObject.Name, strings.Contains(e.Message, l.Name)))
			}
		}
		slices.Sort(got)
		want := []string{"VMNetIPPool gone true", "VMNetIPPool pool-2 true"}
		return slices.Equal(got, want), fmt.Sprintf("got %q, want %q", got, want)
	})
}

// checkLock fails t unless the lock of addr in the VMNetIPPool ns/pool is
// held by ns/holder.
func checkLock(t *testing.T, c client.Client, ns, pool string, addr netip.Addr, holder string) {
	t.Helper()
	l := controller.NewLock(v1alpha1.PoolKind, ns, pool, addr, types.NamespacedName{})
	if !capiipamtest.Get(t, c, l) {
		t.Fatalf("no lock of %s in pool %s", addr, pool)
	}
	if got, want := fmt.Sprintf("%s/%s", l.Spec.HolderNamespace, l.Spec.HolderName), ns+"/"+holder; got != want {
		t.Errorf("the lock of %s in pool %s is held by %s, want %s", addr, pool, got, want)
	}
}

// countEvents counts the Events of reason on the VMNetIPPool ns/pool.
func countEvents(t *testing.T, c client.Client, ns, reason, pool string) int {
	t.Helper()
	var events corev1.EventList
	if err := c.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range events.Items {
		if e.Reason == reason && e.InvolvedObject.Name == pool {
			n++
		}
	}
	return n
}
