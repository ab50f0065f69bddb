package controller

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// TestFlushHoldsNoLock: claims of one pool at once each get a distinct
// address, all written into the pool's status, while no status write and
// no read of the pool (after a conflict and the sleep before it) happens
// with the entry's mu held: the pool reconciler may run meanwhile. The
// first status write conflicts, so the retry path runs too.
func TestFlushHoldsNoLock(t *testing.T) {
	const claims = 24
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "ns", Name: "net"}
	pool := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, UID: "pool", Generation: 1},
		Spec: v1alpha1.IPPoolSpec{Network: "n", CIDR: "10.9.0.0/24"}}
	var (
		e          *poolEntry
		held       atomic.Int64 // API calls made with e.mu held
		writes     atomic.Int64
		conflicted atomic.Bool
	)
	// checkFree takes e.mu from another goroutine: it gets it at once
	// unless the caller holds it across the call (others hold it for
	// moments only).
	checkFree := func() {
		if e == nil {
			return
		}
		got := make(chan struct{})
		go func() {
			e.mu.Lock()
			e.mu.Unlock() // taken only to see that it can be
			close(got)
		}()
		select {
		case <-got:
		case <-time.After(5 * time.Second):
			held.Add(1)
		}
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(pool).WithStatusSubresource(&v1alpha1.IPPool{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				checkFree()
				return c.Get(ctx, k, obj, opts...)
			},
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
				checkFree()
				writes.Add(1)
				if conflicted.CompareAndSwap(false, true) {
					return apierrors.NewConflict(v1alpha1.GroupVersion.WithResource("ippools").GroupResource(), obj.GetName(), fmt.Errorf("changed"))
				}
				return c.SubResource(sub).Update(ctx, obj, opts...)
			},
		}).Build()
	stored := &v1alpha1.IPPool{}
	if err := c.Get(context.Background(), key, stored); err != nil {
		t.Fatal(err)
	}
	cache := newPoolCache("epoch")
	entry := cache.Entry(key, stored.UID)
	d := cacheready.Driver[*poolSet]{
		Publish: func(conditions.Condition, string, *poolSet, bool) error { return nil },
		Build: func(int64) (*poolSet, error) {
			s, _, err := buildPoolSet(stored)
			return s, err
		},
		Adopt: func(s *poolSet) { entry.obj, entry.pool = stored.DeepCopy(), s },
	}
	m, err := d.Run(entry.machine, cacheready.Observed{Generation: stored.Generation})
	if err != nil {
		t.Fatal(err)
	}
	entry.machine = m
	e = entry
	w := &poolWriter{client: c, reader: c, cache: cache, now: time.Now, limit: DefaultMaxAllocations}

	got := make([]netip.Addr, claims)
	errs := make([]error, claims)
	var wg sync.WaitGroup
	for i := range claims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := w.allocate(context.Background(), key, fmt.Sprintf("52:54:00:00:00:%02x", i), netip.Addr{})
			got[i], errs[i] = res.addr, err
		}()
	}
	wg.Wait()

	seen := map[netip.Addr]int{}
	for i := range claims {
		if errs[i] != nil {
			t.Fatalf("claim %d: %v", i, errs[i])
		}
		if j, ok := seen[got[i]]; ok || !got[i].IsValid() {
			t.Fatalf("claims %d and %d got %s", j, i, got[i])
		}
		seen[got[i]] = i
	}
	if err := c.Get(context.Background(), key, stored); err != nil {
		t.Fatal(err)
	}
	for a := range seen {
		if stored.Status.Allocated[a.String()] == "" {
			t.Errorf("%s handed out but not in the pool's status", a)
		}
	}
	if n := held.Load(); n != 0 {
		t.Errorf("%d API calls made with the entry's mu held, want 0", n)
	}
	if !conflicted.Load() || writes.Load() < 2 {
		t.Errorf("%d status writes, conflicted %v: the retry path did not run", writes.Load(), conflicted.Load())
	}
	t.Logf("%d claims, %d status writes (one conflicted)", claims, writes.Load())
}
