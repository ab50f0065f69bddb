package manager

import (
	"flag"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
)

// AddFlags registers on fs every flag of command.Flags, with the defaults
// every controller command uses, and returns the Flags they fill in. what
// names what one leader does, for -leader-elect's help.
func AddFlags(fs *flag.FlagSet, what string) *command.Flags {
	f := &command.Flags{}
	f.AddKubeconfig(fs)
	f.AddClientLimits(fs)
	f.AddMetrics(fs, true)
	f.AddProbes(fs, "the informer caches are synced")
	fs.BoolVar(&f.LeaderElect, "leader-elect", false, "elect a leader so that only one replica "+what+" (the others wait, ready)")
	fs.StringVar(&f.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader election Lease (default: the in-cluster namespace)")
	fs.StringVar(&f.Namespace, "namespace", "", "watch only this namespace (default: all)")
	return f
}

// Options returns the manager options of f for scheme: the metrics server
// (HTTPS with the API server's authentication and authorization of each
// scrape under -metrics-secure), the probe address, leader election under
// the Lease named leaderElectionID (released as soon as the context ends,
// so that a successor takes over at once), and the cache restricted to
// -namespace when it is set.
func Options(f *command.Flags, scheme *runtime.Scheme, leaderElectionID string) ctrl.Options {
	metricsAddr, _ := command.BindAddress(f.MetricsAddr)
	probeAddr, _ := command.BindAddress(f.ProbeAddr)
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
	opts.Cache = CacheOptions(f.Namespace)
	return opts
}

// CacheOptions returns the informer cache's options: restricted to
// namespace unless it is empty, and keeping no object's managedFields,
// which no controller here reads and which make up much of a bound
// claim's or an IPAddress's bytes (less to copy on every cached read,
// less heap per object).
func CacheOptions(namespace string) cache.Options {
	opts := cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
	if namespace != "" {
		opts.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	return opts
}

// New loads the kubeconfig (see command.Flags.RESTConfig) and returns a manager with the
// Options of f and its two checks: /healthz "ping" (the process serves
// HTTP) and /readyz "informer-caches" (see CachesSynced), logging to log.
// The caller registers its controllers and starts it.
//
// log becomes controller-runtime's logger once the kubeconfig loaded:
// that logger is process-wide and keeps the first one set, so a command
// that fails on its kubeconfig leaves it unset (tests run commands more
// than once in a process).
func New(f *command.Flags, scheme *runtime.Scheme, leaderElectionID string, log logr.Logger) (ctrl.Manager, error) {
	cfg, err := f.RESTConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	ctrl.SetLogger(log)
	mgr, err := ctrl.NewManager(cfg, Options(f, scheme, leaderElectionID))
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
