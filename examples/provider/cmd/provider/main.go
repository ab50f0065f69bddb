// Command provider runs vmnetkit's example infrastructure-machine provider
// against a cluster: it writes each VMMachine's status.addresses and
// VMProvisioned condition from its devices, the NICs its hypervisor sync
// reports in status.network, and its Node (see package provider).
//
//	kubectl apply -f examples/provider/config/crd
//	go run ./examples/provider/cmd/provider -kubeconfig ~/.kube/config
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
	"net/netip"
	"os"
	"strings"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
	"github.com/vmnetkit/vmnetkit/examples/internal/manager"
	"github.com/vmnetkit/vmnetkit/examples/provider"
	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// skipNameValidation lets tests run the command more than once in a
// process: controller-runtime refuses a second controller of one name.
var skipNameValidation bool

func main() {
	err := run(ctrl.SetupSignalHandler(), os.Args[1:], os.Stderr)
	os.Exit(command.ExitCode("provider", err, os.Stderr))
}

// flags holds the command line of the provider: the flags every controller
// command shares (command.Flags) and its own.
type flags struct {
	*command.Flags
	policy      readiness.Policy
	ignore      []netip.Prefix
	concurrency int
	logging     *command.Logging
}

// parseFlags parses the provider's command line. Its usage (for -h) and
// parse errors go to stderr; -h returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	fs := flag.NewFlagSet("provider", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &flags{Flags: manager.AddFlags(fs, "writes machine status")}
	policy := fs.String("policy", "strict", `readiness policy: "strict" (every DHCP NIC has a usable address) or "counting" (the legacy rule: enough addresses)`)
	ignore := fs.String("ignore", "", "comma-separated prefixes whose addresses never count toward readiness (virtual IPs), such as 10.96.0.0/12")
	fs.IntVar(&f.concurrency, "concurrent-machines", 4, "VMMachines reconciled at once")
	f.logging = command.AddLoggingFlags(fs, stderr)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch *policy {
	case "strict":
		f.policy = readiness.Strict
	case "counting":
		f.policy = readiness.Counting
	default:
		return nil, fmt.Errorf("-policy=%q: want strict or counting", *policy)
	}
	if *ignore != "" {
		for _, s := range strings.Split(*ignore, ",") {
			p, err := netip.ParsePrefix(strings.TrimSpace(s))
			if err != nil {
				return nil, fmt.Errorf("-ignore: %w", err)
			}
			f.ignore = append(f.ignore, p.Masked())
		}
	}
	if f.concurrency <= 0 {
		return nil, fmt.Errorf("-concurrent-machines=%d: must be positive", f.concurrency)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// run parses args, starts the manager and blocks until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	scheme, err := manager.Scheme(infrav1.AddToScheme)
	if err != nil {
		return err
	}
	mgr, err := manager.New(f.Flags, scheme, "vmnetkit-provider.infrastructure.vmnetkit.dev", f.logging.Logger())
	if err != nil {
		return err
	}
	r := &provider.Reconciler{Policy: f.policy, Ignore: f.ignore}
	copts := controller.Options{MaxConcurrentReconciles: f.concurrency, SkipNameValidation: ptr.To(skipNameValidation)}
	if err := r.SetupWithManager(ctx, mgr, copts); err != nil {
		return err
	}
	ctrl.Log.WithName("provider").Info("starting", "policy", f.policy.String(), "ignore", len(f.ignore), "leaderElection", f.LeaderElect)
	return mgr.Start(ctx)
}
