// Command operator runs vmnetkit's example IPPool operator against a cluster:
// it hands out addresses from IPPools to the NICs of VMNetworkConfigs.
//
//	kubectl apply -f examples/operator/config/crd
//	go run ./examples/operator -kubeconfig ~/.kube/config
//
// Without -kubeconfig it uses $KUBECONFIG, the in-cluster config, or
// ~/.kube/config, in that order. config/ holds the manifests to run it in a
// cluster (Namespace, ServiceAccount, RBAC, Deployment with probes).
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// setupOptions are the controller options run starts from; the flags fill
// in the rest. Tests that call run more than once in a process set
// SkipNameValidation.
var setupOptions controller.Options

func main() {
	err := run(ctrl.SetupSignalHandler(), os.Args[1:], os.Stderr)
	os.Exit(command.ExitCode("operator", err, os.Stderr))
}

// run parses args, starts the manager and blocks until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	var cfg *rest.Config
	if f.kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", f.kubeconfig)
	} else {
		cfg, err = ctrl.GetConfig()
	}
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	metrics := metricsserver.Options{BindAddress: f.metricsAddr}
	if f.metricsSecure {
		// HTTPS with a self-signed certificate (unless -metrics-cert-dir), and
		// every request authenticated with a TokenReview and authorized with
		// a SubjectAccessReview for GET on the non-resource URL /metrics.
		metrics.SecureServing = true
		metrics.CertDir = f.metricsCertDir
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	opts := ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metrics,
		HealthProbeBindAddress:  f.probeAddr,
		LeaderElection:          f.leaderElect,
		LeaderElectionID:        "vmnetkit-operator.network.vmnetkit.dev",
		LeaderElectionNamespace: f.leaderNamespace,
		// Stop handing out addresses as soon as leadership is lost.
		LeaderElectionReleaseOnCancel: true,
	}
	if f.namespace != "" {
		opts.Cache.DefaultNamespaces = map[string]cache.Config{f.namespace: {}}
	}
	// controller-runtime's logger is process-wide and keeps the first one set.
	ctrl.SetLogger(f.logging.Logger())
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("informer-caches", cachesSynced(mgr.GetCache())); err != nil {
		return err
	}
	copts := setupOptions
	copts.Epoch, copts.MaxConcurrentClaims, copts.MaxAllocations = f.epoch, f.concurrency, f.maxAllocations
	ep, err := controller.Setup(mgr, copts)
	if err != nil {
		return err
	}
	ctrl.Log.WithName("operator").Info("starting", "epoch", ep, "leaderElection", f.leaderElect,
		"maxAllocationsPerPool", f.maxAllocations, "metricsSecure", f.metricsSecure)
	return mgr.Start(ctx)
}
