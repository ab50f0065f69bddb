// Command operator runs vmnetkit's example IPPool operator against a cluster:
// it hands out addresses from IPPools to the NICs of VMNetworkConfigs and,
// where the API server serves KubeVirt's kubevirt.io/v1, generates one
// VMNetworkConfig per VirtualMachine.
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
	"io"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
	"github.com/vmnetkit/vmnetkit/examples/internal/manager"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
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
	scheme, err := manager.Scheme(v1alpha1.AddToScheme, kubevirt.AddToScheme)
	if err != nil {
		return err
	}
	mgr, err := manager.New(f.Flags, scheme, "vmnetkit-operator.network.vmnetkit.dev", f.logging.Logger())
	if err != nil {
		return err
	}
	copts := setupOptions
	copts.Epoch, copts.MaxConcurrentClaims, copts.MaxAllocations = f.claims.Epoch, f.claims.MaxConcurrentClaims, f.maxAllocations
	ep, err := controller.Setup(mgr, copts)
	if err != nil {
		return err
	}
	// The VirtualMachine controller starts only where KubeVirt is
	// installed (checked once: install KubeVirt, then restart the operator).
	virt, err := controller.ServesKubeVirt(mgr.GetConfig())
	if err != nil {
		return err
	}
	if virt {
		if err := controller.SetupVirtualMachines(mgr, copts); err != nil {
			return err
		}
	}
	ctrl.Log.WithName("operator").Info("starting", "epoch", ep, "leaderElection", f.LeaderElect,
		"maxAllocationsPerPool", f.maxAllocations, "metricsSecure", f.MetricsSecure, "kubevirt", virt)
	return mgr.Start(ctx)
}
