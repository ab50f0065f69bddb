package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/provider"
	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
)

// config is the provider's config/ folder.
var config = filepath.Join("..", "..", "config")

func init() { skipNameValidation = true }

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr error
		stderr  string
		err     string
	}{
		{name: "help", args: []string{"-h"}, wantErr: flag.ErrHelp, stderr: "-health-probe-bind-address"},
		{name: "unknown flag", args: []string{"-no-such-flag"}, stderr: "no-such-flag"},
		{name: "stray argument", args: []string{"extra"}, err: `unexpected arguments ["extra"]`},
		{name: "bad policy", args: []string{"-policy=loose"}, err: `-policy="loose": want strict or counting`},
		{name: "bad ignore", args: []string{"-ignore=10.0.0.0/8,nope"}, err: "-ignore:"},
		{name: "no concurrency", args: []string{"-concurrent-machines=0"}, err: "-concurrent-machines=0: must be positive"},
		{name: "missing kubeconfig file", args: []string{"-kubeconfig", filepath.Join(t.TempDir(), "none")}, err: "kubeconfig:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stderr)
			if err == nil {
				t.Fatalf("run(%q) = nil, want an error", tt.args)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("run(%q) = %v, want %v", tt.args, err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.err) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("run(%q) = %v, printed %q; want an error containing %q, output containing %q", tt.args, err, stderr.String(), tt.err, tt.stderr)
			}
		})
	}
}

// TestManifests applies config/ (CRD, generated role, manager, samples) to
// the real API server, with dry-run for all but the Namespace.
func TestManifests(t *testing.T) {
	cfg := kubetest.Start(t, filepath.Join(config, "crd"))
	all := kubetest.ReadManifests(t, config, "crd", "rbac", "manager", "samples")
	kubetest.WantKinds(t, kubetest.ApplyManifests(t, cfg, all), "Namespace", "ServiceAccount", "Deployment", "Service",
		"ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "VMMachine")
}

// TestDeploymentMatchesFlags: the Deployment runs the command with flags it
// parses, its probes and metrics port are those the flags open, it elects
// a leader (two replicas), and its account holds the generated role.
func TestDeploymentMatchesFlags(t *testing.T) {
	all := kubetest.ReadManifests(t, config, "rbac", "manager")
	kubetest.CheckControllerDeployment(t, all, "vmnetkit-provider", parseFlags)
}

// TestRunAsRole runs the command as a user holding only the generated role,
// through $KUBECONFIG (no -kubeconfig), with leader election and probes on:
// it becomes ready, takes the Lease, and reconciles the sample machine to
// VMProvisioned=True once the hypervisor sync reports its DHCP address.
func TestRunAsRole(t *testing.T) {
	cfg := kubetest.Start(t, filepath.Join(config, "crd"))
	scheme := kubetest.NewScheme(infrav1.AddToScheme)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	for _, ns := range []string{"vms", "vmnetkit-system"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	user := "vmnetkit-provider-test"
	kubetest.GrantRole(t, cfg, filepath.Join(config, "rbac", "role.yaml"), user)
	t.Setenv("KUBECONFIG", kubetest.Kubeconfig(t, cfg, user))

	probes := kubetest.FreeAddr(t)
	log := kubetest.RunCommand(t, run, "-namespace", "vms", "-leader-elect", "-leader-election-namespace", "vmnetkit-system",
		"-health-probe-bind-address", probes, "-metrics-bind-address", "0")
	kubetest.WaitHTTP(t, "http://"+probes+"/readyz", http.StatusOK, 60*time.Second, log)
	kubetest.WaitHTTP(t, "http://"+probes+"/healthz", http.StatusOK, 60*time.Second, log)

	m := &infrav1.VMMachine{}
	data, err := os.ReadFile(filepath.Join(config, "samples", "vmmachine.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, m); err != nil {
		t.Fatal(err)
	}
	m.Namespace = "vms"
	if err := c.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	// The hypervisor sync reports the DHCP address on the NIC (the
	// provider may write the status in between: retry on conflict).
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(m), m); err != nil {
			return err
		}
		m.Status.Network = []infrav1.NICStatus{{MACAddress: m.Spec.Network.Devices[0].MACAddress, IPAddresses: []string{"10.0.0.5/24"}}}
		return c.Status().Update(ctx, m)
	})
	if err != nil {
		t.Fatal(err)
	}
	got := &infrav1.VMMachine{}
	kubetest.Eventually(t, 60*time.Second, "VMProvisioned True", func() (bool, string) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(m), got); err != nil {
			t.Fatal(err)
		}
		return meta.IsStatusConditionTrue(got.Status.Conditions, provider.ConditionVMProvisioned),
			fmt.Sprintf("status %+v; log:\n%s", got.Status, log.String())
	})
	want := []infrav1.MachineAddress{{Type: infrav1.MachineHostName, Address: m.Name}, {Type: infrav1.MachineInternalIP, Address: "10.0.0.5"}}
	if fmt.Sprint(got.Status.Addresses) != fmt.Sprint(want) {
		t.Errorf("status.addresses = %v, want %v", got.Status.Addresses, want)
	}
	lease := &coordinationv1.Lease{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "vmnetkit-system", Name: "vmnetkit-provider.infrastructure.vmnetkit.dev"}, lease); err != nil {
		t.Errorf("leader election Lease: %v", err)
	}
}
