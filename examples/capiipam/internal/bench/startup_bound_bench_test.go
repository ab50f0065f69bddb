package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// BenchmarkStartupBound is BenchmarkStartup as a fleet has it: every
// IPAddress is a bound claim's, bound by a first provider that is then
// stopped. Then another provider starts, startRounds times one after the
// other, each time with one new claim waiting; it lists every claim and
// IPAddress, leaves the bound claims alone (no reconcile, no write),
// checks the IPAddresses' claims startCheckDelay later, and rebuilds its
// pools. It reports, as medians of the starts, the time from the
// manager's start to the new claim's addressRef, over the time of bare
// paginated Lists (500 a page), just before, of the IPAddresses
// (first/list-addresses, the limit BenchmarkStartup uses) and of the
// IPAddresses and the claims (first/list-both: what the informers list).
// It fails if a start wrote a bound claim before it served the new one.
//
// 20,000 bound claims (half on an IPv4 /18, half on an IPv6 range) rather
// than 100,000: binding them takes minutes here.
// Run it with -benchtime 1x.
func BenchmarkStartupBound(b *testing.B) {
	const n = 20000
	cfg := capiipamtest.APIServer(b)
	c := kubetest.NewClient(b, cfg, capiipamtest.Scheme)
	for range b.N {
		ns := kubetest.CreateNamespace(b, c, "bench-bound")
		s := capiipamtest.NewClaimSet(b, c, ns, n)
		setup := time.Now()
		binder := capiipamtest.StartManager(b, cfg, ns, "epoch-bench-bound-1", nil)
		s.CreateAll(b, c, 0, n)
		s.WaitSettled(b, c, 20*time.Minute)
		binder.Stop()
		b.Logf("%d claims bound by a first provider in %v", n, time.Since(setup).Round(time.Second))

		var firsts, overAddresses, overBoth, apiCPU []float64
		var apiCycles float64
		for r := range startRounds {
			listAddresses := timeList(b, c, ns, &ipamv1.IPAddressList{}, n)
			listClaims := timeList(b, c, ns, &ipamv1.IPAddressClaimList{}, n)

			before := capiipamtest.Versions(b, c, ns)
			w := watchAddressRefs(b, cfg, ns)
			name := fmt.Sprintf("first-%d", r)
			capiipamtest.Create(b, c, capiipamtest.NewClaim(ns, name, capiipamtest.PoolRef(v1alpha1.PoolKind, "v4")))
			cpuBefore := readAPIServerCPU(b, cfg)
			start := time.Now()
			m := capiipamtest.StartManager(b, cfg, ns, fmt.Sprintf("epoch-bench-bound-start-%d", r), nil)
			w.wait(b, name, 10*time.Minute)
			first := time.Since(start)
			cpu := readAPIServerCPU(b, cfg).since(cpuBefore)
			w.stop()
			after := capiipamtest.Versions(b, c, ns)
			m.Stop()
			written := 0
			for name, rv := range before {
				if after[name] != rv {
					written++
				}
			}
			if written != 0 {
				b.Errorf("start %d: %d of %d bound claims written before it served a new claim", r, written, len(before))
			}
			b.Logf("start %d: list of the IPAddresses %v, of the claims %v, first new claim served %v (%.2fx, %.2fx); %v", r,
				listAddresses.Round(time.Millisecond), listClaims.Round(time.Millisecond), first.Round(time.Millisecond),
				first.Seconds()/listAddresses.Seconds(), first.Seconds()/(listAddresses+listClaims).Seconds(), cpu)
			firsts = append(firsts, first.Seconds())
			apiCPU = append(apiCPU, cpu.cpu)
			apiCycles += cpu.cycles
			overAddresses = append(overAddresses, first.Seconds()/listAddresses.Seconds())
			overBoth = append(overBoth, first.Seconds()/(listAddresses+listClaims).Seconds())
		}
		b.ReportMetric(median(firsts), "first-s")
		b.ReportMetric(median(overAddresses), "first/list-addresses")
		b.ReportMetric(median(overBoth), "first/list-both")
		b.ReportMetric(median(apiCPU), "apiserver-cpu-s")
		b.ReportMetric(apiCycles, "apiserver-gc-cycles")
	}
}

// startRounds is how many times BenchmarkStartupBound starts a provider
// on the same bound claims. The starts scatter (0.7x to 3x the List here)
// with the API server's own work: a fast start costs it about 2 s of CPU,
// nearly all serving the two Lists; a slow one 1.5 to 5 s more, and where
// the cycles were seen, a cycle of its garbage collector ended in each slow
// start (its heap holds every claim, IPAddress and lock as unstructured
// objects: 2 to 2.5 GB live after the binding, 4 to 5.5 s of CPU a cycle;
// docs/performance.md, "a start with bound claims"). So the median of five
// is reported, and each start is logged with the API server's CPU and the
// collector's cycles that ended in it (apiServerCPU).
const startRounds = 5

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
