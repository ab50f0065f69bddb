package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// controlPlane is etcd and a kube-apiserver that the test can stop and
// start again: the same port, the same serving certificate (its CertDir
// is the test's, not a temporary one envtest would delete at a stop) and
// the same etcd, so that the agent's and the operator's kubeconfigs stay
// valid across an outage.
type controlPlane struct {
	t    testing.TB
	env  *envtest.Environment
	cfg  *rest.Config
	down bool
}

// startControlPlane starts etcd and kube-apiserver from
// KUBEBUILDER_ASSETS with the operator's CRDs; t.Cleanup stops them.
func startControlPlane(t testing.TB) *controlPlane {
	t.Helper()
	dir, err := kubetest.AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    dir,
		CRDDirectoryPaths:        []string{"../../operator/config/crd"},
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 90 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	env.ControlPlane.APIServer = &envtest.APIServer{CertDir: t.TempDir()}
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
		t.Fatalf("start kube-apiserver and etcd from %s: %v", dir, err)
	}
	cp := &controlPlane{t: t, env: env, cfg: cfg}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stop kube-apiserver and etcd: %v", err)
		}
	})
	return cp
}

// apiServerStopTimeout is how long a stop waits for kube-apiserver to
// exit after SIGTERM before it SIGKILLs it: with watches open through the
// agents' relays it does not always exit within envtest's 20 s, and the
// outage the test wants is the same either way.
const apiServerStopTimeout = 5 * time.Second

// stopAPIServer stops kube-apiserver (SIGTERM, then SIGKILL after
// apiServerStopTimeout); etcd keeps running with its data.
func (cp *controlPlane) stopAPIServer() {
	cp.t.Helper()
	api := cp.env.ControlPlane.APIServer
	api.StopTimeout = apiServerStopTimeout
	if err := api.Stop(); err != nil && !strings.Contains(err.Error(), "timeout waiting for process") {
		cp.t.Fatalf("stop kube-apiserver: %v", err)
	}
	cp.down = true
}

// startAPIServer starts kube-apiserver again, on the port and with the
// certificates it had, and waits for its /healthz.
func (cp *controlPlane) startAPIServer() {
	cp.t.Helper()
	if err := cp.env.ControlPlane.APIServer.Start(); err != nil {
		cp.t.Fatalf("start kube-apiserver again: %v", err)
	}
	cp.down = false
}
