package main

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

// cachesSynced returns the readiness check of the operator: nil once every
// informer the manager started has listed its objects (so reconcilers read a
// complete view), an error before. It says nothing about IPPools: a pool
// whose CacheReady is False (bad spec, paused, still building) leaves the
// process ready, since restarting it would not help; that state is on the
// pool's condition and in the vmnetkit_ippool_cache_ready metric.
func cachesSynced(c cache.Cache) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), syncWait)
		defer cancel()
		if !c.WaitForCacheSync(ctx) {
			return errors.New("informer caches not synced yet")
		}
		return nil
	}
}
