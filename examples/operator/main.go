// Command operator runs vmnetkit's example IPPool operator against a cluster:
// it hands out addresses from IPPools to the NICs of VMNetworkConfigs.
//
//	kubectl apply -f examples/operator/config/crd
//	go run ./examples/operator -kubeconfig ~/.kube/config
package main

import (
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "operator:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		metricsAddr     = flag.String("metrics-bind-address", "0", `address the metrics endpoint binds to, such as ":8080"; "0" turns it off`)
		probeAddr       = flag.String("health-probe-bind-address", "0", `address the /healthz and /readyz endpoints bind to; "0" turns them off`)
		leaderElect     = flag.Bool("leader-elect", false, "elect a leader so that only one replica hands out addresses")
		leaderNamespace = flag.String("leader-election-namespace", "", "namespace of the leader election lease (default: the in-cluster namespace)")
		namespace       = flag.String("namespace", "", "watch only this namespace (default: all)")
		epoch           = flag.String("epoch", "", "this process's cache epoch (default: random; set only in tests)")
		concurrency     = flag.Int("concurrent-claims", 8, "VMNetworkConfigs reconciled at once")
	)
	// -kubeconfig is registered by controller-runtime's config package.
	logConfig := textlogger.NewConfig()
	logConfig.AddFlags(flag.CommandLine) // -v, -vmodule
	flag.Parse()
	ctrl.SetLogger(textlogger.NewLogger(logConfig))

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	opts := ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: *metricsAddr},
		HealthProbeBindAddress:  *probeAddr,
		LeaderElection:          *leaderElect,
		LeaderElectionID:        "vmnetkit-operator.network.vmnetkit.dev",
		LeaderElectionNamespace: *leaderNamespace,
		// Stop handing out addresses as soon as leadership is lost.
		LeaderElectionReleaseOnCancel: true,
	}
	if *namespace != "" {
		opts.Cache.DefaultNamespaces = map[string]cache.Config{*namespace: {}}
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	ep, err := controller.Setup(mgr, controller.Options{Epoch: *epoch, MaxConcurrentClaims: *concurrency})
	if err != nil {
		return err
	}
	ctrl.Log.WithName("operator").Info("starting", "epoch", ep, "leaderElection", *leaderElect)
	return mgr.Start(ctrl.SetupSignalHandler())
}
