package clusterctltest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/cluster"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

var scheme = kubetest.NewScheme(v1alpha1.AddToScheme, ipamv1.AddToScheme, clusterv1.AddToScheme, clusterctlv1.AddToScheme)

// The providers as a user names them to clusterctl, and the repository
// the clusterctl config's images setting puts capiipam's image in, as the
// README's config does.
const (
	coreProvider    = "cluster-api"
	ipamProvider    = "vmnetkit"
	imageRepository = "registry.example.com/you"
)

// repository is a clusterctl file repository in a temporary folder, and
// the clusterctl config whose providers list names it.
type repository struct {
	config      string // the clusterctl config file
	capiVersion string // Cluster API's: the module's
	version     string // capiipam's: the newest series of its metadata.yaml
}

// newRepository lays out, in t.TempDir(), capiipam's committed release
// assets as clusterctl's file repository wants them
// ({repo}/ipam-vmnetkit/{version}/), and the stand-in core provider (see
// the package doc), and writes the clusterctl config that names both.
func newRepository(t testing.TB) repository {
	t.Helper()
	dir := t.TempDir()
	capiDir, capiVersion, err := kubetest.FindModule("sigs.k8s.io/cluster-api")
	if err != nil {
		t.Fatal(err)
	}
	r := repository{config: filepath.Join(dir, "clusterctl.yaml"), capiVersion: capiVersion}
	metadata := readFile(t, filepath.Join("..", "metadata.yaml"))
	r.version = newestVersion(t, metadata)
	ipam := writeRelease(t, filepath.Join(dir, "repo", "ipam-"+ipamProvider, r.version), "ipam-components.yaml",
		readFile(t, filepath.Join("..", "ipam-components.yaml")), metadata)

	crds, err := kubetest.ClusterAPICRDs()
	if err != nil {
		t.Fatal(err)
	}
	core := []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capi-system\n")
	for _, crd := range crds {
		core = append(append(core, "\n---\n"...), readFile(t, crd)...)
	}
	coreURL := writeRelease(t, filepath.Join(dir, "repo", coreProvider, r.capiVersion), "core-components.yaml",
		core, readFile(t, filepath.Join(capiDir, "metadata.yaml")))

	config := fmt.Sprintf(`providers:
  - name: %s
    type: CoreProvider
    url: file://%s
  - name: %s
    type: IPAMProvider
    url: file://%s
images:
  ipam-%s:
    repository: %s
    tag: %s
overridesFolder: %s
`, coreProvider, coreURL, ipamProvider, ipam, ipamProvider, imageRepository, r.version, filepath.Join(dir, "overrides"))
	if err := os.WriteFile(r.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

// writeRelease writes a release's components and metadata.yaml into dir
// and returns the components' path.
func writeRelease(t testing.TB, dir, components string, data, metadata []byte) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metadata.yaml"), metadata, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, components)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// newestVersion returns the version of the newest release series of
// clusterctl metadata, patch 0.
func newestVersion(t testing.TB, metadata []byte) string {
	t.Helper()
	var m clusterctlv1.Metadata
	if err := yaml.UnmarshalStrict(metadata, &m); err != nil || len(m.ReleaseSeries) == 0 {
		t.Fatalf("metadata.yaml: %v, %d release series", err, len(m.ReleaseSeries))
	}
	newest := m.ReleaseSeries[0]
	for _, s := range m.ReleaseSeries[1:] {
		if s.Major > newest.Major || s.Major == newest.Major && s.Minor > newest.Minor {
			newest = s
		}
	}
	return fmt.Sprintf("v%d.%d.0", newest.Major, newest.Minor)
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(data)
}

// managementCluster is a kube-apiserver into which clusterctl init
// installed the core provider and capiipam.
type managementCluster struct {
	cfg        *rest.Config  // an admin's
	kubeconfig string        // an admin's, for clusterctl
	c          client.Client // an admin's, uncached
}

// newManagementCluster starts a kube-apiserver with the cert-manager
// stand-in and runs clusterctl init --core cluster-api --bootstrap -
// --control-plane - --ipam vmnetkit against it, from repo.
func newManagementCluster(t testing.TB, repo repository) managementCluster {
	t.Helper()
	cfg := kubetest.Start(t, filepath.Join("testdata", "cert-manager-crds.yaml"))
	m := managementCluster{cfg: cfg, kubeconfig: kubetest.Kubeconfig(t, cfg, ""), c: kubetest.NewClient(t, cfg, scheme)}
	cc := newClusterctl(t, repo)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := cc.Init(ctx, clusterctl.InitOptions{
		Kubeconfig:            clusterctl.Kubeconfig{Path: m.kubeconfig},
		CoreProvider:          coreProvider + ":" + repo.capiVersion,
		BootstrapProviders:    []string{clusterctl.NoopProvider},
		ControlPlaneProviders: []string{clusterctl.NoopProvider},
		IPAMProviders:         []string{ipamProvider}, // the version the config's URL names, as a user types it
	})
	if err != nil {
		t.Fatalf("clusterctl init: %v", err)
	}
	return m
}

// newClusterctl returns clusterctl's client reading the config of repo.
// Its clusters are clusterctl's own, through clusterctl's own proxy, but
// for one check: the kube-apiserver of hack/envtest-assets.sh, built from
// the Go module proxy without the release's version stamp, reports version
// v0.0.0-master, which clusterctl's minimum-version check (v1.20.0)
// refuses; that one refusal is let through (sourceBuiltServer).
func newClusterctl(t testing.TB, repo repository) clusterctl.Client {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.New(ctx, repo.config)
	if err != nil {
		t.Fatalf("clusterctl config: %v", err)
	}
	clusters := func(in clusterctl.ClusterClientFactoryInput) (cluster.Client, error) {
		kc := cluster.Kubeconfig(in.Kubeconfig)
		return cluster.New(kc, cfg,
			cluster.InjectProxy(sourceBuiltServer{cluster.NewProxy(kc)}),
			cluster.InjectYamlProcessor(in.Processor),
		), nil
	}
	cc, err := clusterctl.New(ctx, repo.config, clusterctl.InjectConfig(cfg), clusterctl.InjectClusterClientFactory(clusters))
	if err != nil {
		t.Fatalf("clusterctl: %v", err)
	}
	return cc
}

// sourceBuiltServer is clusterctl's proxy to a cluster, whose version
// check passes a server that reports the version of a build without
// version stamp (v0.0.0-master), and only that.
type sourceBuiltServer struct{ cluster.Proxy }

func (p sourceBuiltServer) ValidateKubernetesVersion() error {
	err := p.Proxy.ValidateKubernetesVersion()
	if err != nil && strings.Contains(err.Error(), "unsupported management cluster server version: v0.0.0-master+") {
		return nil
	}
	return err
}
