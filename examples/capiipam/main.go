// Command capiipam runs vmnetkit's Cluster API IPAM provider against a
// cluster: it answers IPAddressClaims whose poolRef names a VMNetIPPool or
// GlobalVMNetIPPool (apiGroup ipam.vmnetkit.dev) with IPAddresses. Cluster
// API's own CRDs (IPAddressClaim, IPAddress, Cluster) must be installed.
//
//	kubectl apply -f examples/capiipam/config/crd
//	go run ./examples/capiipam -kubeconfig ~/.kube/config
//
// Without -kubeconfig it uses $KUBECONFIG, the in-cluster config, or
// ~/.kube/config, in that order. config/ holds the manifests to run it in a
// cluster (Namespace, ServiceAccount, RBAC, Deployment with probes).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/internal/command"
	"github.com/vmnetkit/vmnetkit/examples/internal/manager"
)

func main() {
	err := run(ctrl.SetupSignalHandler(), os.Args[1:], os.Stderr)
	os.Exit(command.ExitCode("capiipam", err, os.Stderr))
}

// flags holds the command line of capiipam: the flags every controller
// command shares (command.Flags) and its own.
type flags struct {
	*command.Flags
	claims  manager.ControllerOptions // -epoch, -concurrent-claims
	logging *command.Logging
}

// parseFlags parses capiipam's command line. Its usage (for -h) and parse
// errors go to stderr; -h returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	fs := flag.NewFlagSet("capiipam", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &flags{Flags: manager.AddFlags(fs, "hands out addresses")}
	f.claims.AddFlags(fs, "IPAddressClaims")
	f.logging = command.AddLoggingFlags(fs, stderr)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := f.claims.Validate(); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// setupOptions are the controller options run starts from; the flags fill
// in the rest. Tests that call run more than once in a process set
// SkipNameValidation.
var setupOptions controller.Options

// run parses args, starts the manager and blocks until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	scheme, err := manager.Scheme(v1alpha1.AddToScheme, ipamv1.AddToScheme, clusterv1.AddToScheme)
	if err != nil {
		return err
	}
	mgr, err := manager.New(f.Flags, scheme, "vmnetkit-capiipam.ipam.vmnetkit.dev", f.logging.Logger())
	if err != nil {
		return err
	}
	copts := setupOptions
	copts.Epoch, copts.MaxConcurrentClaims = f.claims.Epoch, f.claims.MaxConcurrentClaims
	ep, err := controller.Setup(mgr, copts)
	if err != nil {
		return err
	}
	ctrl.Log.WithName("capiipam").Info("starting", "epoch", ep, "leaderElection", f.LeaderElect, "metricsSecure", f.MetricsSecure)
	return mgr.Start(ctx)
}
