package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// flags holds the command line of the operator.
type flags struct {
	kubeconfig      string
	metricsAddr     string
	metricsSecure   bool
	metricsCertDir  string
	probeAddr       string
	leaderElect     bool
	leaderNamespace string
	namespace       string
	epoch           string
	concurrency     int
	maxAllocations  int
	logging         *command.Logging
}

// parseFlags parses the operator's command line. Its usage (for -h) and
// parse errors go to stderr; -h returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &flags{}
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	fs.StringVar(&f.metricsAddr, "metrics-bind-address", "0", `address the Prometheus metrics endpoint (/metrics) binds to, such as ":8443"; "0" turns it off`)
	fs.BoolVar(&f.metricsSecure, "metrics-secure", true, "serve /metrics over HTTPS and only to callers the API server authenticates (TokenReview) and authorizes for GET /metrics (SubjectAccessReview); false serves plain HTTP to anyone")
	fs.StringVar(&f.metricsCertDir, "metrics-cert-dir", "", "folder holding tls.crt and tls.key for -metrics-secure (default: a self-signed certificate made at start)")
	fs.StringVar(&f.probeAddr, "health-probe-bind-address", "0", `address /healthz (liveness: the process serves HTTP) and /readyz (readiness: the informer caches are synced) bind to, such as ":8081"; "0" turns them off`)
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "elect a leader so that only one replica hands out addresses")
	fs.StringVar(&f.leaderNamespace, "leader-election-namespace", "", "namespace of the leader election lease (default: the in-cluster namespace)")
	fs.StringVar(&f.namespace, "namespace", "", "watch only this namespace (default: all)")
	fs.StringVar(&f.epoch, "epoch", "", "this process's cache epoch, written to each pool's status.cacheEpoch (default: random; set only in tests)")
	fs.IntVar(&f.concurrency, "concurrent-claims", 8, "VMNetworkConfigs reconciled at once")
	fs.IntVar(&f.maxAllocations, "max-allocations-per-pool", controller.DefaultMaxAllocations,
		"most addresses one IPPool hands out to MACs: its status must fit in one etcd object (an IPPool's spec.maxAllocations may lower it); claims beyond it wait with reason CapacityLimited")
	f.logging = command.AddLoggingFlags(fs, stderr)
	// klog's own text for -v speaks of a "testing logger".
	fs.Lookup("v").Usage = "log verbosity: 0 logs starts, stops and problems; 1 adds a line per reconcile of a pool or claim; 5 adds controller-runtime's own detail"
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if f.maxAllocations <= 0 {
		return nil, fmt.Errorf("-max-allocations-per-pool=%d: must be positive", f.maxAllocations)
	}
	return f, nil
}
