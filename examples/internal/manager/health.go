package manager

import (
	"context"
	"errors"
	"net/http"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
)

// syncWait bounds how long one /readyz request waits for the caches: a probe
// answers quickly, and the kubelet asks again.
const syncWait = 200 * time.Millisecond

// CachesSynced returns the readiness check of a controller: nil once every
// informer the manager started has listed its objects (so reconcilers read
// a complete view), an error before. A replica waiting for the leader Lease
// starts its caches too, so it becomes ready and takes over at once. It
// says nothing about the pools: a pool whose CacheReady is False (bad spec,
// paused, still building) leaves the process ready, since restarting it
// would not help; that state is on the pool's condition and in metrics.
func CachesSynced(c cache.Cache) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), syncWait)
		defer cancel()
		if !c.WaitForCacheSync(ctx) {
			return errors.New("informer caches not synced yet")
		}
		return nil
	}
}
