package manager

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Options returns the manager options of f for scheme: the metrics server
// (HTTPS with the API server's authentication and authorization of each
// scrape under -metrics-secure), the probe address, leader election under
// the Lease named leaderElectionID (released as soon as the context ends,
// so that a successor takes over at once), and the cache restricted to
// -namespace when it is set.
func (f *Flags) Options(scheme *runtime.Scheme, leaderElectionID string) ctrl.Options {
	metricsAddr, _ := BindAddress(f.MetricsAddr)
	probeAddr, _ := BindAddress(f.ProbeAddr)
	metrics := metricsserver.Options{BindAddress: metricsAddr}
	if f.MetricsSecure {
		// HTTPS with a self-signed certificate (unless -metrics-cert-dir),
		// and every request authenticated with a TokenReview and authorized
		// with a SubjectAccessReview for GET on the non-resource URL
		// /metrics.
		metrics.SecureServing = true
		metrics.CertDir = f.MetricsCertDir
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	opts := ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metrics,
		HealthProbeBindAddress:  probeAddr,
		LeaderElection:          f.LeaderElect,
		LeaderElectionID:        leaderElectionID,
		LeaderElectionNamespace: f.LeaderElectionNamespace,
		// Stop reconciling as soon as leadership is lost.
		LeaderElectionReleaseOnCancel: true,
	}
	if f.Namespace != "" {
		opts.Cache.DefaultNamespaces = map[string]cache.Config{f.Namespace: {}}
	}
	return opts
}

// New loads the kubeconfig (see RESTConfig) and returns a manager with the
// Options of f and its two checks: /healthz "ping" (the process serves
// HTTP) and /readyz "informer-caches" (see CachesSynced). The caller sets
// the process's logger with ctrl.SetLogger before, registers its
// controllers, and starts it.
func New(f *Flags, scheme *runtime.Scheme, leaderElectionID string) (ctrl.Manager, error) {
	cfg, err := f.RESTConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, f.Options(scheme, leaderElectionID))
	if err != nil {
		return nil, fmt.Errorf("manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("informer-caches", CachesSynced(mgr.GetCache())); err != nil {
		return nil, err
	}
	return mgr, nil
}
