package capiipamtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// One kube-apiserver for a test binary, started by the first test that
// needs it (the pure tests run without it), with capiipam's CRDs and
// Cluster API's IPAddressClaim, IPAddress and Cluster CRDs (set by Main).
var (
	env    kubetest.Shared
	crdErr error
)

// Scheme knows capiipam's types and Cluster API's ipam and core types.
var Scheme = kubetest.NewScheme(v1alpha1.AddToScheme, ipamv1.AddToScheme, clusterv1.AddToScheme)

// Main runs a package's tests and then stops the API server: call it from
// TestMain as os.Exit(capiipamtest.Main(m)).
func Main(m *testing.M) int {
	var capi []string
	capi, crdErr = kubetest.ClusterAPICRDs()
	dir, err := capiipamDir()
	crdErr = errors.Join(crdErr, err)
	env.CRDPaths = append(capi, filepath.Join(dir, "config", "crd"))
	return kubetest.Main(m, &env)
}

// capiipamDir is examples/capiipam: the nearest folder named capiipam at or
// above the working directory, which go test sets to the package's folder.
// Not this file's place from runtime.Caller: make test builds with
// -trimpath, which makes that an import path.
func capiipamDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if filepath.Base(d) == "capiipam" {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("capiipamtest: no folder named capiipam at or above " + dir)
		}
	}
}

// APIServer returns the shared API server's admin config, starting it on
// first use. It fails t (never skips) when the binaries or Cluster API's
// CRDs are missing.
func APIServer(t testing.TB) *rest.Config {
	t.Helper()
	if crdErr != nil {
		t.Fatal(crdErr)
	}
	return env.Config(t)
}
