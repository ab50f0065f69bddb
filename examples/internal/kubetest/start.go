package kubetest

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// startTimeout bounds each of etcd's and kube-apiserver's start; envtest's
// default of 20s is short on a busy 2-core machine.
const startTimeout = 90 * time.Second

// Start starts etcd and kube-apiserver on loopback with envtest, installs the
// CRDs found in crdPaths (files or folders of YAML/JSON manifests), and stops
// them at t.Cleanup. It fails t with a clear message when KUBEBUILDER_ASSETS
// is unset or does not hold the binaries. The returned config is an admin's.
// The control plane's output stays hidden unless
// KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true.
func Start(t testing.TB, crdPaths ...string) *rest.Config {
	t.Helper()
	cfg, stop, err := StartMain(crdPaths...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("kubetest: stop: %v", err)
		}
	})
	return cfg
}

// StartMain is Start for TestMain: one API server shared by a package's
// tests. The caller calls stop once, after the tests. Its error wraps
// ErrNoAssets when the binaries are missing.
func StartMain(crdPaths ...string) (cfg *rest.Config, stop func() error, err error) {
	dir, err := AssetsDir()
	if err != nil {
		return nil, nil, err
	}
	quietLogs()
	env := &envtest.Environment{
		BinaryAssetsDirectory:    dir,
		CRDDirectoryPaths:        crdPaths,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: startTimeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	cfg, err = env.Start()
	if err != nil {
		_ = env.Stop()
		return nil, nil, fmt.Errorf("kubetest: start kube-apiserver and etcd from %s=%q: %w", AssetsEnv, dir, err)
	}
	return cfg, env.Stop, nil
}
