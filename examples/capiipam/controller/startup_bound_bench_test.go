package controller_test

import (
	"context"
	"testing"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// BenchmarkStartupBound is BenchmarkStartup as a fleet has it: every
// IPAddress is a bound claim's, bound by a first provider that is then
// stopped, so the second one, whose start is measured, reconciles every
// claim (they are bound: no write) and every IPAddress with a claim owner
// (the release controller: the claim exists, no request) besides
// rebuilding its pools. It reports the time from the manager's start to a
// new claim, created before the start, having its addressRef, over the
// time of bare paginated Lists (500 a page) of the IPAddresses
// (first/list-addresses, the limit BenchmarkStartup uses) and of the
// IPAddresses and the claims (first/list-both: what the informers list).
// It fails if the second provider wrote a bound claim by then.
//
// 20,000 bound claims (half on an IPv4 /18, half on an IPv6 range) rather
// than 100,000: binding them takes minutes here.
// Run it with -benchtime 1x.
func BenchmarkStartupBound(b *testing.B) {
	const n = 20000
	cfg := apiServer(b)
	c := kubetest.NewClient(b, cfg, scheme)
	for range b.N {
		ns := kubetest.CreateNamespace(b, c, "bench-bound")
		s := newClaimSet(b, c, ns, n)
		setup := time.Now()
		binder := startManager(b, cfg, ns, "epoch-bench-bound-1", nil)
		s.createAll(b, c, 0, n)
		s.waitSettled(b, c, 20*time.Minute)
		binder.stop()
		before := versions(b, c, ns)
		b.Logf("%d claims bound by a first provider in %v", n, time.Since(setup).Round(time.Second))

		listAddresses := timeList(b, c, ns, &ipamv1.IPAddressList{}, n)
		listClaims := timeList(b, c, ns, &ipamv1.IPAddressClaimList{}, n)

		w := watchAddressRefs(b, cfg, ns)
		create(b, c, newClaim(ns, "first", poolRef(v1alpha1.PoolKind, "v4")))
		start := time.Now()
		m := startManager(b, cfg, ns, "epoch-bench-bound-2", nil)
		w.wait(b, "first", 10*time.Minute)
		first := time.Since(start)
		after := versions(b, c, ns)
		m.stop()
		written := 0
		for name, rv := range before {
			if after[name] != rv {
				written++
			}
		}
		if written != 0 {
			b.Errorf("%d of %d bound claims written by the second provider before it served a new claim", written, len(before))
		}
		b.Logf("start: list of the IPAddresses %v, of the claims %v, first new claim served %v",
			listAddresses.Round(time.Millisecond), listClaims.Round(time.Millisecond), first.Round(time.Millisecond))
		b.ReportMetric(first.Seconds(), "first-s")
		b.ReportMetric(first.Seconds()/listAddresses.Seconds(), "first/list-addresses")
		b.ReportMetric(first.Seconds()/(listAddresses+listClaims).Seconds(), "first/list-both")
	}
}

// timeList times a bare paginated List (500 a page) of list's kind in ns,
// and fails unless it finds at least want objects.
func timeList(b *testing.B, c client.Client, ns string, list client.ObjectList, want int) time.Duration {
	b.Helper()
	start := time.Now()
	total, cont := 0, ""
	for {
		if err := c.List(context.Background(), list, client.InNamespace(ns), client.Limit(500), client.Continue(cont)); err != nil {
			b.Fatal(err)
		}
		total += apimeta.LenList(list)
		if cont = list.GetContinue(); cont == "" {
			break
		}
	}
	if total < want {
		b.Fatalf("listed %d, want at least %d", total, want)
	}
	return time.Since(start)
}
