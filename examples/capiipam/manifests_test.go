package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

func init() {
	// The tests run the command more than once in this process;
	// controller-runtime refuses a second controller of the same name.
	setupOptions.SkipNameValidation = true
}

// apiServer starts a kube-apiserver with Cluster API's CRDs (those of the
// module this package is built with) and capiipam's.
func apiServer(t *testing.T) *rest.Config {
	t.Helper()
	capi, err := kubetest.ClusterAPICRDs()
	if err != nil {
		t.Fatal(err)
	}
	return kubetest.Start(t, append(capi, filepath.Join("config", "crd"))...)
}

// TestManifests applies config/ (CRDs, generated role, manager, samples)
// to the real API server, with dry-run for all but the Namespace.
func TestManifests(t *testing.T) {
	cfg := apiServer(t)
	all := kubetest.ReadManifests(t, "config", "crd", "rbac", "manager", "samples")
	kubetest.WantKinds(t, kubetest.ApplyManifests(t, cfg, all), "Namespace", "ServiceAccount", "Deployment", "Service",
		"ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "VMNetIPPool", "GlobalVMNetIPPool", "IPAddressClaim")
}

// TestDeploymentMatchesFlags: the Deployment runs the command with flags it
// parses, its probes and metrics port are those the flags open, its
// replicas elect a leader, and its account holds the generated role.
func TestDeploymentMatchesFlags(t *testing.T) {
	all := kubetest.ReadManifests(t, "config", "rbac", "manager")
	kubetest.CheckControllerDeployment(t, all, "vmnetkit-capiipam", parseFlags)
}

// TestRunAsRole runs the command as a user holding only the generated role,
// through $KUBECONFIG (no -kubeconfig), with leader election and probes on.
// It starts before the role is bound, so its caches cannot sync: /healthz
// answers 200 and /readyz does not. Once bound it becomes ready, takes the
// Lease, and answers the sample claim on the sample pool with an
// IPAddress.
func TestRunAsRole(t *testing.T) {
	cfg := apiServer(t)
	scheme := kubetest.NewScheme(v1alpha1.AddToScheme, ipamv1.AddToScheme)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	for _, ns := range []string{"vms", "vmnetkit-system"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	user := "vmnetkit-capiipam-test"
	t.Setenv("KUBECONFIG", kubetest.Kubeconfig(t, cfg, user))
	probes := kubetest.FreeAddr(t)
	log := kubetest.RunCommand(t, run, "-namespace", "vms", "-leader-elect", "-leader-election-namespace", "vmnetkit-system",
		"-health-probe-bind-address", probes, "-metrics-bind-address", "0")
	kubetest.WaitHTTP(t, "http://"+probes+"/healthz", http.StatusOK, 60*time.Second, log)
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		resp, err := http.Get("http://" + probes + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("/readyz = 200 before the caches synced (the user may not list yet)")
		}
	}
	kubetest.GrantRole(t, cfg, filepath.Join("config", "rbac", "role.yaml"), user)
	kubetest.WaitHTTP(t, "http://"+probes+"/readyz", http.StatusOK, 60*time.Second, log)

	pool, claim := &v1alpha1.VMNetIPPool{}, &ipamv1.IPAddressClaim{}
	for file, obj := range map[string]client.Object{"vmnetippool.yaml": pool, "ipaddressclaim.yaml": claim} {
		data, err := os.ReadFile(filepath.Join("config", "samples", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(data, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		obj.SetNamespace("vms")
	}
	for _, obj := range []client.Object{pool, claim} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	got := &ipamv1.IPAddressClaim{}
	kubetest.Eventually(t, 60*time.Second, "an address for the claim", func() (bool, string) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(claim), got); err != nil {
			t.Fatal(err)
		}
		return got.Status.AddressRef.Name != "", fmt.Sprintf("status %+v; log:\n%s", got.Status, log.String())
	})
	addr := &ipamv1.IPAddress{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "vms", Name: got.Status.AddressRef.Name}, addr); err != nil {
		t.Fatal(err)
	}
	t.Logf("claim %s: IPAddress %s = %s/%d", claim.Name, addr.Name, addr.Spec.Address, *addr.Spec.Prefix)
	lease := &coordinationv1.Lease{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "vmnetkit-system", Name: "vmnetkit-capiipam.ipam.vmnetkit.dev"}, lease); err != nil {
		t.Errorf("leader election Lease: %v", err)
	}
}
