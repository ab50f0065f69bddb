package controller_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// One kube-apiserver for the package's integration tests, started by the
// first test that needs it.
var (
	envOnce sync.Once
	envCfg  *rest.Config
	envStop func() error
	envErr  error
)

// apiServer returns the shared API server's admin config, starting it on
// first use with this provider's CRDs and Cluster API's IPAddressClaim,
// IPAddress and Cluster CRDs. It fails t (never skips) when the binaries
// are missing.
func apiServer(t testing.TB) *rest.Config {
	t.Helper()
	envOnce.Do(func() {
		var capi []string
		capi, envErr = clusterAPICRDs()
		if envErr != nil {
			return
		}
		start := time.Now()
		envCfg, envStop, envErr = kubetest.StartMain(append(capi, filepath.Join("..", "config", "crd"))...)
		t.Logf("started kube-apiserver and etcd in %v", time.Since(start).Round(time.Millisecond))
	})
	if envErr != nil {
		t.Fatal(envErr)
	}
	return envCfg
}

// clusterAPICRDs returns the CRD manifests of IPAddressClaim, IPAddress
// and Cluster from the sigs.k8s.io/cluster-api module this package is
// built with (in the module cache), so the tests install exactly the
// schema of the Go types they use.
func clusterAPICRDs() ([]string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/cluster-api").Output()
	if err != nil {
		return nil, fmt.Errorf("find the sigs.k8s.io/cluster-api module: go list -m: %w", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "bases")
	var files []string
	for _, f := range []string{"ipam.cluster.x-k8s.io_ipaddressclaims.yaml", "ipam.cluster.x-k8s.io_ipaddresses.yaml", "cluster.x-k8s.io_clusters.yaml"} {
		p := filepath.Join(dir, f)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("Cluster API CRD: %w", err)
		}
		files = append(files, p)
	}
	return files, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if envStop != nil {
		if err := envStop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop kube-apiserver and etcd:", err)
		}
	}
	os.Exit(code)
}

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme, ipamv1.AddToScheme, clusterv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()
