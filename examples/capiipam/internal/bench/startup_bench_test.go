package bench

import (
	"context"
	"fmt"
	"net/netip"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// BenchmarkStartup measures, from one run against the test API server, a
// provider with a pool of 100,000 IPAddresses (an IPv4 /15) beside a pool
// of 1,000 (an IPv4 /20), in one namespace:
//
//   - first/list: the time from the manager's start to a claim of the big
//     pool, created before the start, having its addressRef, over the time
//     of a bare paginated List (500 a page) of the namespace's 101,000
//     IPAddresses, which the provider's informer lists too;
//   - lat100k/lat1k: the median time from a claim's create to its
//     addressRef, claims made one at a time and alternating between the
//     two pools (20 each), big pool over small pool;
//   - bytes/address: the heap the manager adds to the test process (after a
//     GC, before its start and once both pools are CacheReady: its informer
//     caches and in-memory pools), per IPAddress.
//
// Creating the IPAddresses takes a few minutes (32 writers); it is not part
// of what is measured. Run it with -benchtime 1x.
func BenchmarkStartup(b *testing.B) {
	const big, small, rounds = 100000, 1000, 20
	cfg := capiipamtest.APIServer(b)
	c := kubetest.NewClient(b, cfg, capiipamtest.Scheme)
	for range b.N {
		ns := kubetest.CreateNamespace(b, c, "bench-startup")
		bigPool := capiipamtest.NewPool(ns, "big", v1alpha1.PoolSpec{Addresses: []string{"10.128.0.0/15"}, Prefix: 15})
		smallPool := capiipamtest.NewPool(ns, "small", v1alpha1.PoolSpec{Addresses: []string{"10.200.0.0/20"}, Prefix: 20})
		capiipamtest.Create(b, c, bigPool, smallPool)
		setup := time.Now()
		if err := kubetest.InParallel(big+small, 32, func(i int) error {
			pool, v := "big", 10<<24|128<<16|uint32(i+1) // 10.128.0.1 on
			if i >= big {
				pool, v = "small", 10<<24|200<<16|uint32(i-big+1) // 10.200.0.1 on
			}
			a := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
			ip := plainAddress(ns, pool, i, a)
			ip.Name = fmt.Sprintf("ip-%06d", i)
			return c.Create(context.Background(), ip)
		}); err != nil {
			b.Fatal(err)
		}
		b.Logf("%d IPAddresses created in %v", big+small, time.Since(setup).Round(time.Second))

		start := time.Now()
		total, cont := 0, ""
		for {
			var page ipamv1.IPAddressList
			if err := c.List(context.Background(), &page, client.InNamespace(ns), client.Limit(500), client.Continue(cont)); err != nil {
				b.Fatal(err)
			}
			total += len(page.Items)
			if cont = page.Continue; cont == "" {
				break
			}
		}
		list := time.Since(start)
		if total != big+small {
			b.Fatalf("listed %d IPAddresses, want %d", total, big+small)
		}

		w := watchAddressRefs(b, cfg, ns)
		capiipamtest.Create(b, c, capiipamtest.NewClaim(ns, "first", capiipamtest.PoolRef(v1alpha1.PoolKind, "big")))
		heapBefore := heapAfterGC()
		start = time.Now()
		m := capiipamtest.StartManager(b, cfg, ns, "epoch-bench-startup", nil)
		w.wait(b, "first", 10*time.Minute)
		first := time.Since(start)
		capiipamtest.WaitCacheReady(b, c, bigPool, m.Epoch)
		capiipamtest.WaitCacheReady(b, c, smallPool, m.Epoch)
		perAddress := float64(heapAfterGC()-heapBefore) / (big + small)
		if bigPool.Status.Addresses == nil || bigPool.Status.Addresses.Used < big {
			b.Fatalf("big pool status %s, want at least %d used", capiipamtest.StatusText(bigPool.Status), big)
		}

		var latSmall, latBig []time.Duration
		for i := range rounds {
			for _, p := range []struct {
				pool string
				lat  *[]time.Duration
			}{{"small", &latSmall}, {"big", &latBig}} {
				name := fmt.Sprintf("%s-%02d", p.pool, i)
				t0 := time.Now()
				capiipamtest.Create(b, c, capiipamtest.NewClaim(ns, name, capiipamtest.PoolRef(v1alpha1.PoolKind, p.pool)))
				w.wait(b, name, time.Minute)
				*p.lat = append(*p.lat, time.Since(t0))
			}
		}
		m.Stop()
		med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
		b.Logf("start: list %v, first claim served %v; claim latency medians: 1k %v, 100k %v; %.0f bytes of heap per IPAddress",
			list.Round(time.Millisecond), first.Round(time.Millisecond), med(latSmall), med(latBig), perAddress)
		b.ReportMetric(list.Seconds(), "list-s")
		b.ReportMetric(first.Seconds(), "first-s")
		b.ReportMetric(first.Seconds()/list.Seconds(), "first/list")
		b.ReportMetric(float64(med(latSmall).Microseconds())/1000, "lat1k-ms")
		b.ReportMetric(float64(med(latBig).Microseconds())/1000, "lat100k-ms")
		b.ReportMetric(float64(med(latBig))/float64(med(latSmall)), "lat100k/lat1k")
		b.ReportMetric(perAddress, "bytes/address")
	}
}

// heapAfterGC returns the bytes of live heap after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// addressRefs follows the claims of one namespace by watch: which have an
// addressRef.
type addressRefs struct {
	mu    sync.Mutex
	bound map[string]chan struct{}
	stop  func() // ends the watch; t.Cleanup also does
}

// watchAddressRefs starts following the claims of ns; a watch the API
// server ends is started again (a claim bound meanwhile is caught by the
// List before it).
func watchAddressRefs(t testing.TB, cfg *rest.Config, ns string) *addressRefs {
	t.Helper()
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: capiipamtest.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a := &addressRefs{bound: map[string]chan struct{}{}, stop: cancel}
	var list ipamv1.IPAddressClaimList
	if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	go func() {
		for ctx.Err() == nil {
			for _, cl := range list.Items {
				a.seen(&cl)
			}
			// From the List's resourceVersion: without one the API server
			// would send every claim again, loading the start measured.
			w, err := c.Watch(ctx, &ipamv1.IPAddressClaimList{}, client.InNamespace(ns),
				&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
			if err == nil {
				for ev := range w.ResultChan() {
					if cl, ok := ev.Object.(*ipamv1.IPAddressClaim); ok {
						a.seen(cl)
					}
				}
				w.Stop()
			}
			time.Sleep(10 * time.Millisecond)
			_ = c.List(ctx, &list, client.InNamespace(ns))
		}
	}()
	return a
}

func (a *addressRefs) ch(name string) chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch, ok := a.bound[name]
	if !ok {
		ch = make(chan struct{})
		a.bound[name] = ch
	}
	return ch
}

func (a *addressRefs) seen(cl *ipamv1.IPAddressClaim) {
	if cl.Status.AddressRef.Name == "" {
		return
	}
	ch := a.ch(cl.Name)
	a.mu.Lock()
	defer a.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// wait waits until the claim name has an addressRef.
func (a *addressRefs) wait(t testing.TB, name string, timeout time.Duration) {
	t.Helper()
	select {
	case <-a.ch(name):
	case <-time.After(timeout):
		t.Fatalf("claim %s: no addressRef after %v", name, timeout)
	}
}
