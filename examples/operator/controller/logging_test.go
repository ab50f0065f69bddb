package controller_test

import (
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// TestReconcileLogLines runs the operator with the commands' logger
// (command.AddLoggingFlags) at -v 0 and -v 1: the first logs what an
// operator acts on (controller-runtime's starts), the second adds one line
// per reconcile of a pool and of a claim.
func TestReconcileLogLines(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	tests := []struct {
		name          string
		args          []string
		wantPerObject bool
	}{
		{name: "default", args: nil, wantPerObject: false},
		{name: "v1", args: []string{"-v=1"}, wantPerObject: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out logtest.Buffer
			fs := flag.NewFlagSet("operator", flag.ContinueOnError)
			logging := command.AddLoggingFlags(fs, &out)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			ns := kubetest.CreateNamespace(t, c, "logging")
			createPool(t, c, ns, "net", v1alpha1.IPPoolSpec{Network: "n", CIDR: "10.80.0.0/24", RangeStart: "10.80.0.10", RangeEnd: "10.80.0.20"})
			m := startManagerLogged(t, cfg, ns, "epoch-logging-"+tt.name, nil, controller.Options{}, logging.Logger())
			waitPoolsReady(t, c, ns, m.epoch, "net")
			if err := c.Create(context.Background(), claimOn(ns, "vm", "52:54:00:80:00:01", "net")); err != nil {
				t.Fatal(err)
			}
			waitClaimsReady(t, c, ns, 1)
			m.stop()
			got := out.String()
			if !strings.Contains(got, `"Starting Controller"`) {
				t.Errorf("no level-0 line (controller-runtime's start) in the log:\n%s", got)
			}
			for _, line := range []string{`"pool reconciled"`, `"claim reconciled"`} {
				if has := strings.Contains(got, line); has != tt.wantPerObject {
					t.Errorf("%s in the log = %v, want %v:\n%s", line, has, tt.wantPerObject, got)
				}
			}
		})
	}
}
