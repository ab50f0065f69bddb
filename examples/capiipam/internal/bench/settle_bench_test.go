package bench

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
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
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// plainAddress is an IPAddress as a plain client creates it, with no claim.
func plainAddress(ns, pool string, i int, a netip.Addr) *ipamv1.IPAddress {
	return &ipamv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("ip-%05d", i), Labels: map[string]string{controller.AddressLabel: a.String()}},
		Spec: ipamv1.IPAddressSpec{
			ClaimRef: ipamv1.IPAddressClaimReference{Name: fmt.Sprintf("ip-%05d", i)},
			PoolRef:  capiipamtest.PoolRef(v1alpha1.PoolKind, pool),
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
	cfg := capiipamtest.APIServer(b)
	c := kubetest.NewClient(b, cfg, capiipamtest.Scheme)
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
	fs := capiipamtest.NewClaimSet(b, c, ns, n)
	pools := []client.Object{&v1alpha1.VMNetIPPool{ObjectMeta: capiipamtest.MetaOf(ns, "v4")}, &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: fs.GlobalPool}}}
	capiipamtest.Get(b, c, pools[0])
	capiipamtest.Get(b, c, pools[1])
	answered := capiipamtest.WatchSettled(b, cfg, ns, n) // the provider rounds' watch, for the same load
	calls := kubetest.ReadAPICalls(b, cfg)
	start := time.Now()
	if err := kubetest.InParallel(n, 16, func(i int) error { return answerPlainly(fs, c, pools[i%2], i) }); err != nil {
		b.Fatal(err)
	}
	<-answered
	rate := float64(n) / time.Since(start).Seconds()
	reqs := requestsPerClaim(b, cfg, calls, n, "plain client")
	if got := fs.Settled(b, c); got != n {
		b.Fatalf("plain client: %d claims settled, want %d", got, n)
	}
	return rate, reqs
}

// settleRate creates n claims at once (16 writers) while a provider
// reconciling workers claims at once answers them, checks them, and returns
// the claims settled per second and the requests per claim.
func settleRate(b *testing.B, cfg *rest.Config, c client.Client, n, workers int) (float64, float64) {
	ns := kubetest.CreateNamespace(b, c, "bench-settle")
	s := capiipamtest.NewClaimSet(b, c, ns, n)
	m := capiipamtest.StartManagerN(b, cfg, ns, "epoch-bench-settle", nil, workers)
	capiipamtest.WaitCacheReady(b, c, &v1alpha1.VMNetIPPool{ObjectMeta: capiipamtest.MetaOf(ns, "v4")}, m.Epoch)
	capiipamtest.WaitCacheReady(b, c, &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: s.GlobalPool}}, m.Epoch)
	settled := capiipamtest.WatchSettled(b, cfg, ns, n)
	calls := kubetest.ReadAPICalls(b, cfg)
	start := time.Now()
	s.CreateAll(b, c, 0, n)
	select {
	case <-settled:
	case <-time.After(15 * time.Minute):
		b.Fatalf("%d of %d claims settled after 15m", s.Settled(b, c), n)
	}
	rate := float64(n) / time.Since(start).Seconds()
	// The pools' counts follow within countsDelay of the last IPAddress
	// event: counted too.
	time.Sleep(2 * time.Second)
	reqs := requestsPerClaim(b, cfg, calls, n, fmt.Sprintf("provider, %d claims reconciled at once", workers))
	s.Check(b, c)
	m.Stop()
	return rate, reqs
}

// answerPlainly creates the i-th claim and answers it as the contract
// requires and nothing more: the claim's finalizer, its IPAddress (the
// provider's object: both owners, address i of its pool), its
// status. It is the physical limit of the contract: four writes, no read.
// pool is the claim's pool as read.
func answerPlainly(s capiipamtest.ClaimSet, c client.Client, pool client.Object, i int) error {
	ctx := context.Background()
	claim := s.Claim(i)
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
	ip := plainAddress(s.NS, claim.Spec.PoolRef.Name, i, a)
	ip.Name, ip.Spec.ClaimRef.Name, ip.Spec.PoolRef = claim.Name, claim.Name, claim.Spec.PoolRef
	ip.Spec.Prefix, ip.Spec.Gateway = &prefix, gateway
	ip.Labels = nil // the address label serves the provider's split-brain guard, not the contract
	if err := controllerutil.SetControllerReference(claim, ip, capiipamtest.Scheme); err != nil {
		return err
	}
	if err := controllerutil.SetOwnerReference(pool, ip, capiipamtest.Scheme, controllerutil.WithBlockOwnerDeletion(true)); err != nil {
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
