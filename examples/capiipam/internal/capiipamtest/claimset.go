package capiipamtest

import (
	"context"
	"fmt"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// ClaimSet is a number of claims split between an IPv4 VMNetIPPool (a /18)
// and an IPv6 GlobalVMNetIPPool (a range of 100,000 in a /64).
type ClaimSet struct {
	NS         string // the namespace of the claims and the IPv4 pool
	GlobalPool string // the IPv6 pool's name
	N          int
}

// NewClaimSet creates the two pools of n claims in ns.
func NewClaimSet(t testing.TB, c client.Client, ns string, n int) ClaimSet {
	t.Helper()
	s := ClaimSet{NS: ns, GlobalPool: ns + "-v6", N: n}
	Create(t, c,
		NewPool(ns, "v4", v1alpha1.PoolSpec{Addresses: []string{"10.64.0.0/18"}, Prefix: 18, Gateway: "10.64.0.1"}),
		&v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: s.GlobalPool}, Spec: v1alpha1.PoolSpec{
			Addresses: []string{"fd00:64::-fd00:64::1:869f"}, Prefix: 64, Gateway: "fd00:64::1",
		}})
	return s
}

// Claim returns the i-th claim: even ones on the IPv4 pool, odd ones on the
// IPv6 pool.
func (s ClaimSet) Claim(i int) *ipamv1.IPAddressClaim {
	ref := PoolRef(v1alpha1.PoolKind, "v4")
	if i%2 == 1 {
		ref = PoolRef(v1alpha1.GlobalPoolKind, s.GlobalPool)
	}
	return NewClaim(s.NS, fmt.Sprintf("m-%04d", i), ref)
}

// CreateAll creates claims [from, to) with 16 writers.
// A create the API server fails transiently (Transient: it fails so on a
// loaded machine, with nothing wrong in the provider) is tried again, and
// found made by its earlier try (AlreadyExists) is made: the names are
// the test's own, in its own namespace.
func (s ClaimSet) CreateAll(t testing.TB, c client.Client, from, to int) {
	t.Helper()
	if err := s.createAll(c, from, to); err != nil {
		t.Fatal(err)
	}
}

func (s ClaimSet) createAll(c client.Client, from, to int) error {
	return kubetest.InParallel(to-from, 16, func(i int) error {
		return Retry(func(try int) error {
			err := c.Create(context.Background(), s.Claim(from+i))
			if try > 0 && apierrors.IsAlreadyExists(err) {
				return nil
			}
			return err
		})
	})
}

// Settled returns how many claims have an addressRef.
func (s ClaimSet) Settled(t testing.TB, c client.Client) int {
	t.Helper()
	var list ipamv1.IPAddressClaimList
	if err := Retry(func(int) error { return c.List(context.Background(), &list, client.InNamespace(s.NS)) }); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, cl := range list.Items {
		if cl.Status.AddressRef.Name != "" {
			n++
		}
	}
	return n
}

// WaitSettled waits until every claim has an addressRef, then checks them
// (Check).
func (s ClaimSet) WaitSettled(t testing.TB, c client.Client, timeout time.Duration) {
	t.Helper()
	kubetest.Eventually(t, timeout, fmt.Sprintf("all %d claims settled", s.N), func() (bool, string) {
		n := s.Settled(t, c)
		return n == s.N, fmt.Sprintf("%d settled", n)
	})
	s.Check(t, c)
}

// Check checks that no address is held twice, that each claim's IPAddress
// is its own, of its pool's family, and that each pool counts them.
func (s ClaimSet) Check(t testing.TB, c client.Client) {
	t.Helper()
	addrs := CheckUnique(t, c, s.NS)
	if len(addrs) != s.N {
		t.Errorf("%d IPAddresses, want %d", len(addrs), s.N)
	}
	var list ipamv1.IPAddressClaimList
	if err := Retry(func(int) error { return c.List(context.Background(), &list, client.InNamespace(s.NS)) }); err != nil {
		t.Fatal(err)
	}
	for _, cl := range list.Items {
		a, ok := addrs[cl.Status.AddressRef.Name]
		switch {
		case !ok || cl.Status.AddressRef.Name != cl.Name:
			t.Fatalf("claim %s: addressRef %q", cl.Name, cl.Status.AddressRef.Name)
		case a.Is4() != (cl.Spec.PoolRef.Kind == v1alpha1.PoolKind):
			t.Fatalf("claim %s of %s got %s", cl.Name, cl.Spec.PoolRef.Kind, a)
		case a == netip.MustParseAddr("10.64.0.1") || a == netip.MustParseAddr("fd00:64::1"):
			t.Fatalf("claim %s got the gateway %s", cl.Name, a)
		}
	}
	v4 := &v1alpha1.VMNetIPPool{ObjectMeta: MetaOf(s.NS, "v4")}
	v6 := &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: s.GlobalPool}}
	want4 := v1alpha1.PoolStatusAddresses{Total: 16381, Used: (s.N + 1) / 2, Free: 16381 - (s.N+1)/2}
	want6 := v1alpha1.PoolStatusAddresses{Total: 99998, Used: s.N / 2, Free: 99998 - s.N/2} // 100,000 less anycast and gateway
	kubetest.Eventually(t, 30*time.Second, "pools count every claim", func() (bool, string) {
		Get(t, c, v4)
		Get(t, c, v6)
		a4, a6 := v4.Status.Addresses, v6.Status.Addresses
		return a4 != nil && a6 != nil && *a4 == want4 && *a6 == want6,
			fmt.Sprintf("v4 %s (want %+v), v6 %s (want %+v)", StatusText(v4.Status), want4, StatusText(v6.Status), want6)
	})
}

// WaitCacheReady waits until pool says CacheReady=True of epoch, with its
// counts.
func WaitCacheReady(t testing.TB, c client.Client, pool client.Object, epoch string) {
	t.Helper()
	// Polled every 50ms (not eventually's backoff): the wait is what is measured.
	deadline := time.Now().Add(10 * time.Minute)
	for {
		Get(t, c, pool)
		s := *pool.(v1alpha1.Pool).PoolStatus()
		if s.CacheEpoch == epoch && HasCondition(s.Conditions, "CacheReady", metav1.ConditionTrue) && s.Addresses != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pool not CacheReady after 10m: %s", StatusText(s))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WatchLists counts the Lists of WatchSettled, which TestAPICallsPerClaim
// does not count as the provider's.
var WatchLists atomic.Int64

// WatchSettled returns a channel closed once n claims of ns have an
// addressRef, as a watch shows them: the time is not rounded up to a poll,
// and the API server does not list every claim again and again. A watch the
// API server ends early is started again after a List (the only List it
// makes), from the List's resourceVersion.
func WatchSettled(t testing.TB, cfg *rest.Config, ns string, n int) <-chan struct{} {
	t.Helper()
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: Scheme})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(context.Background(), &ipamv1.IPAddressClaimList{}, client.InNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		seen := map[string]bool{}
		for {
			for ev := range w.ResultChan() {
				if claim, ok := ev.Object.(*ipamv1.IPAddressClaim); ok && claim.Status.AddressRef.Name != "" {
					seen[claim.Name] = true
				}
				if len(seen) == n {
					w.Stop()
					close(done)
					return
				}
			}
			w.Stop()
			var list ipamv1.IPAddressClaimList
			for {
				WatchLists.Add(1)
				if err = c.List(context.Background(), &list, client.InNamespace(ns)); err == nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			for _, claim := range list.Items {
				if claim.Status.AddressRef.Name != "" {
					seen[claim.Name] = true
				}
			}
			if len(seen) == n {
				close(done)
				return
			}
			for {
				if w, err = c.Watch(context.Background(), &ipamv1.IPAddressClaimList{}, client.InNamespace(ns), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}}); err == nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}()
	return done
}

// Versions returns the resourceVersion of every claim in ns by name.
func Versions(t testing.TB, c client.Client, ns string) map[string]string {
	t.Helper()
	var list ipamv1.IPAddressClaimList
	if err := c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(list.Items))
	for _, cl := range list.Items {
		out[cl.Name] = cl.ResourceVersion
	}
	return out
}
