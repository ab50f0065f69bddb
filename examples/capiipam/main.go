// Command capiipam runs vmnetkit's Cluster API IPAM provider against a
// cluster: it answers IPAddressClaims whose poolRef names a VMNetIPPool or
// GlobalVMNetIPPool (apiGroup ipam.vmnetkit.dev) with IPAddresses. Cluster
// API's own CRDs (IPAddressClaim, IPAddress, Cluster) must be installed.
//
//	kubectl apply -f examples/capiipam/config/crd
//	go run ./examples/capiipam -kubeconfig ~/.kube/config
//
// Without -kubeconfig it uses $KUBECONFIG, the in-cluster config, or
// ~/.kube/config, in that order.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/internal/command"
)

func main() {
	err := run(ctrl.SetupSignalHandler(), os.Args[1:], os.Stderr)
	os.Exit(command.ExitCode("capiipam", err, os.Stderr))
}

// run parses args, starts the manager and blocks until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("capiipam", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		kubeconfig      = fs.String("kubeconfig", "", "path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
		metricsAddr     = fs.String("metrics-bind-address", "0", `address the metrics endpoint binds to, such as ":8080"; "0" turns it off`)
		probeAddr       = fs.String("health-probe-bind-address", "0", `address the /healthz and /readyz endpoints bind to; "0" turns them off`)
		leaderElect     = fs.Bool("leader-elect", false, "elect a leader so that only one replica hands out addresses")
		leaderNamespace = fs.String("leader-election-namespace", "", "namespace of the leader election lease (default: the in-cluster namespace)")
		namespace       = fs.String("namespace", "", "watch only this namespace (default: all)")
		epoch           = fs.String("epoch", "", "this process's cache epoch (default: random; set only in tests)")
		concurrency     = fs.Int("concurrent-claims", 8, "IPAddressClaims reconciled at once")
		qps             = fs.Float64("kube-api-qps", -1, "client-side limit of API requests a second; negative: none (the API server's priority and fairness limits)")
		burst           = fs.Int("kube-api-burst", 0, "client-side burst of API requests above -kube-api-qps (default: twice it)")
	)
	logging := command.AddLoggingFlags(fs, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	for _, add := range []func(*runtime.Scheme) error{v1alpha1.AddToScheme, ipamv1.AddToScheme, clusterv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	cfg, err := restConfig(*kubeconfig, float32(*qps), *burst)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	opts := ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: *metricsAddr},
		HealthProbeBindAddress:  *probeAddr,
		LeaderElection:          *leaderElect,
		LeaderElectionID:        "vmnetkit-capiipam.ipam.vmnetkit.dev",
		LeaderElectionNamespace: *leaderNamespace,
		// Stop handing out addresses as soon as leadership is lost.
		LeaderElectionReleaseOnCancel: true,
	}
	if *namespace != "" {
		opts.Cache.DefaultNamespaces = map[string]cache.Config{*namespace: {}}
	}
	// controller-runtime's logger is process-wide and keeps the first one set.
	ctrl.SetLogger(logging.Logger())
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	ep, err := controller.Setup(mgr, controller.Options{Epoch: *epoch, MaxConcurrentClaims: *concurrency})
	if err != nil {
		return err
	}
	ctrl.Log.WithName("capiipam").Info("starting", "epoch", ep, "leaderElection", *leaderElect)
	return mgr.Start(ctx)
}

// restConfig loads the kubeconfig at path (or, when path is empty,
// $KUBECONFIG, the in-cluster config, ~/.kube/config) with a client-side
// limit of qps requests a second, and burst above it (0: 2*qps); a
// negative qps sets none. A kubeconfig file alone would get client-go's
// default of 5 requests a second, and a claim costs five: the provider
// would settle one claim a second, whatever the API server can take.
func restConfig(path string, qps float32, burst int) (*rest.Config, error) {
	var (
		cfg *rest.Config
		err error
	)
	if path != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", path)
	} else {
		cfg, err = ctrl.GetConfig()
	}
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = qps, burst
	if qps > 0 && burst <= 0 {
		cfg.Burst = int(2 * qps)
	}
	return cfg, nil
}
