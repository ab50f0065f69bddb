package controller_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// plainAddress is an IPAddress as a plain client creates it, with no claim.
func plainAddress(ns, pool string, i int, a netip.Addr) *ipamv1.IPAddress {
	return &ipamv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("ip-%05d", i), Labels: map[string]string{controller.AddressLabel: a.String()}},
		Spec: ipamv1.IPAddressSpec{
			ClaimRef: ipamv1.IPAddressClaimReference{Name: fmt.Sprintf("ip-%05d", i)},
			PoolRef:  poolRef(v1alpha1.PoolKind, pool),
			Address:  a.String(), Prefix: ptr.To(int32(16)),
		},
	}
}

// BenchmarkSettle measures, against the test API server and from one run,
// the rate at which 1,000 claims created at once (16 writers, half on an
// IPv4 pool, half on an IPv6 pool) settle, against two physical limits with
// the same parallelism (16 writers):
//
//   - creates/s: 1,000 IPAddress creates from a plain client, one write per
//     claim (the limit the goal of issue 14 names);
//   - floor/s: the same 1,000 claims created and answered by a plain client
//     making only the writes the contract needs (create the claim, as the
//     measured run does, then patch its finalizer, create its IPAddress,
//     patch its status with addressRef and Ready): no allocation, no cache,
//     no guard against a split brain. It keeps the claim finalizer the
//     contract suggests ("you probably need one"), which the provider
//     does without (see the package doc): three writes to the provider's
//     three, the baseline not lowered.
//
// The floor and the provider (16 claims reconciled at once) run three
// rounds each, interleaved (floor, provider, floor, ...), on fresh
// namespaces; claims/floor is the ratio of their medians. requests/claim
// and floor-requests/claim are the API server's own counts
// (apiserver_request_total) of the last rounds, the claims' creates left
// out. Run it with -benchtime 1x.
func BenchmarkSettle(b *testing.B) {
	const n, rounds = 1000, 3
	cfg := apiServer(b)
	c := kubetest.NewClient(b, cfg, scheme)
	for range b.N {
		ns := kubetest.CreateNamespace(b, c, "bench-create")
		start := time.Now()
		if err := kubetest.InParallel(n, 16, func(i int) error {
			return c.Create(context.Background(), plainAddress(ns, "none", i, netip.AddrFrom4([4]byte{10, 200, byte(i >> 8), byte(i)})))
		}); err != nil {
			b.Fatal(err)
		}
		creates := n / time.Since(start).Seconds()

		var floors, claims []float64
		var floorReqs, claimReqs float64
		for r := range rounds {
			rate, reqs := floorRate(b, cfg, c, n)
			floors = append(floors, rate)
			floorReqs = reqs
			rate, reqs = settleRate(b, cfg, c, n, 16)
			claims = append(claims, rate)
			claimReqs = reqs
			b.Logf("round %d: floor %.1f claims/s, provider %.1f claims/s: %.2fx", r+1, floors[r], claims[r], claims[r]/floors[r])
		}
		floor, claim := median(floors), median(claims)
		b.ReportMetric(creates, "creates/s")
		b.ReportMetric(floor, "floor/s")
		b.ReportMetric(claim, "claims/s")
		b.ReportMetric(claim/creates, "claims/creates")
		b.ReportMetric(claim/floor, "claims/floor")
		b.ReportMetric(claimReqs, "requests/claim")
		b.ReportMetric(floorReqs, "floor-requests/claim")
	}
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// requestsPerClaim returns the API requests made between before and now on
// the claims, IPAddresses, locks, pools and events, watches and the claims'
// n creates left out, per claim, and logs them by verb and resource.
func requestsPerClaim(b *testing.B, cfg *rest.Config, before kubetest.APICalls, n int, who string) float64 {
	calls := kubetest.ReadAPICalls(b, cfg).Minus(before).Only("ipaddressclaims", "ipaddresses", "vmnetipaddresslocks", "vmnetippools", "globalvmnetippools", "events")
	calls["POST ipaddressclaims"] -= float64(n)
	total := 0.0
	for k, v := range calls {
		if !strings.HasPrefix(k, "seconds ") && !strings.HasPrefix(k, "WATCH ") {
			total += v
		}
	}
	b.Logf("%s, API requests per claim: %s; total %.2f", who, calls.Table(n), total/float64(n))
	return total / float64(n)
}

// floorRate creates n claims and answers them with a plain client making
// only the contract's writes (answerPlainly, 16 writers), and returns the
// claims settled per second and the requests per claim.
func floorRate(b *testing.B, cfg *rest.Config, c client.Client, n int) (float64, float64) {
	ns := kubetest.CreateNamespace(b, c, "bench-floor")
	fs := newClaimSet(b, c, ns, n)
	pools := []client.Object{&v1alpha1.VMNetIPPool{ObjectMeta: metaOf(ns, "v4")}, &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: fs.globalPool}}}
	get(b, c, pools[0])
	get(b, c, pools[1])
	answered := watchSettled(b, cfg, ns, n) // the provider rounds' watch, for the same load
	calls := kubetest.ReadAPICalls(b, cfg)
	start := time.Now()
	if err := kubetest.InParallel(n, 16, func(i int) error { return fs.answerPlainly(c, pools[i%2], i) }); err != nil {
		b.Fatal(err)
	}
	<-answered
	rate := float64(n) / time.Since(start).Seconds()
	reqs := requestsPerClaim(b, cfg, calls, n, "plain client")
	if got := fs.settled(b, c); got != n {
		b.Fatalf("plain client: %d claims settled, want %d", got, n)
	}
	return rate, reqs
}

// settleRate creates n claims at once (16 writers) while a provider
// reconciling workers claims at once answers them, checks them, and returns
// the claims settled per second and the requests per claim.
func settleRate(b *testing.B, cfg *rest.Config, c client.Client, n, workers int) (float64, float64) {
	ns := kubetest.CreateNamespace(b, c, "bench-settle")
	s := newClaimSet(b, c, ns, n)
	m := startManagerN(b, cfg, ns, "epoch-bench-settle", nil, workers)
	waitCacheReady(b, c, &v1alpha1.VMNetIPPool{ObjectMeta: metaOf(ns, "v4")}, m.epoch)
	waitCacheReady(b, c, &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: s.globalPool}}, m.epoch)
	settled := watchSettled(b, cfg, ns, n)
	calls := kubetest.ReadAPICalls(b, cfg)
	start := time.Now()
	s.createAll(b, c, 0, n)
	select {
	case <-settled:
	case <-time.After(15 * time.Minute):
		b.Fatalf("%d of %d claims settled after 15m", s.settled(b, c), n)
	}
	rate := float64(n) / time.Since(start).Seconds()
	// The pools' counts follow within countsDelay of the last IPAddress
	// event: counted too.
	time.Sleep(2 * time.Second)
	reqs := requestsPerClaim(b, cfg, calls, n, fmt.Sprintf("provider, %d claims reconciled at once", workers))
	s.check(b, c)
	m.stop()
	return rate, reqs
}

// watchLists counts the Lists of watchSettled, which TestAPICallsPerClaim
// does not count as the provider's.
var watchLists atomic.Int64

// watchSettled returns a channel closed once n claims of ns have an
// addressRef, as a watch shows them: the time is not rounded up to a poll,
// and the API server does not list every claim again and again. A watch the
// API server ends early is started again after a List (the only List it
// makes), from the List's resourceVersion.
func watchSettled(t testing.TB, cfg *rest.Config, ns string, n int) <-chan struct{} {
	t.Helper()
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
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
				watchLists.Add(1)
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

// answerPlainly creates the i-th claim and answers it as the contract
// requires and nothing more: the claim's finalizer, its IPAddress (the
// provider's object: both owners, address i of its pool), its
// status. It is the physical limit of the contract: four writes, no read.
// pool is the claim's pool as read.
func (s claimSet) answerPlainly(c client.Client, pool client.Object, i int) error {
	ctx := context.Background()
	claim := s.claim(i)
	if err := c.Create(ctx, claim); err != nil {
		return err
	}
	before := claim.DeepCopy()
	controllerutil.AddFinalizer(claim, controller.ClaimFinalizer)
	if err := c.Patch(ctx, claim, client.MergeFrom(before)); err != nil {
		return err
	}
	// Address i/2 of the pool past its gateway: distinct, no allocator.
	a, prefix, gateway := netip.MustParseAddr("10.64.0.0"), int32(18), "10.64.0.1"
	if i%2 == 1 {
		a, prefix, gateway = netip.MustParseAddr("fd00:64::"), 64, "fd00:64::1"
	}
	for range i/2 + 2 {
		a = a.Next()
	}
	ip := plainAddress(s.ns, claim.Spec.PoolRef.Name, i, a)
	ip.Name, ip.Spec.ClaimRef.Name, ip.Spec.PoolRef = claim.Name, claim.Name, claim.Spec.PoolRef
	ip.Spec.Prefix, ip.Spec.Gateway = &prefix, gateway
	ip.Labels = nil // the address label serves the provider's split-brain guard, not the contract
	if err := controllerutil.SetControllerReference(claim, ip, scheme); err != nil {
		return err
	}
	if err := controllerutil.SetOwnerReference(pool, ip, scheme, controllerutil.WithBlockOwnerDeletion(true)); err != nil {
		return err
	}
	if err := c.Create(ctx, ip); err != nil {
		return err
	}
	before = claim.DeepCopy()
	claim.Status.AddressRef = ipamv1.IPAddressReference{Name: ip.Name}
	claim.Status.Conditions = []metav1.Condition{{
		Type: ipamv1.IPAddressClaimReadyCondition, Status: metav1.ConditionTrue, Reason: controller.ReasonAllocated,
		Message: fmt.Sprintf("%s/%d", a, *ip.Spec.Prefix), LastTransitionTime: metav1.Now(),
	}}
	return c.Status().Patch(ctx, claim, client.MergeFrom(before))
}

// waitCacheReady waits until pool says CacheReady=True of epoch, with its
// counts.
func waitCacheReady(t testing.TB, c client.Client, pool client.Object, epoch string) {
	t.Helper()
	// Polled every 50ms (not eventually's backoff): the wait is what is measured.
	deadline := time.Now().Add(10 * time.Minute)
	for {
		get(t, c, pool)
		s := *pool.(v1alpha1.Pool).PoolStatus()
		if s.CacheEpoch == epoch && hasCondition(s.Conditions, "CacheReady", metav1.ConditionTrue) && s.Addresses != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pool not CacheReady after 10m: %s", statusText(s))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
