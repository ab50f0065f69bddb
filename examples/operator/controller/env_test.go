package controller_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// One kube-apiserver for the package's integration tests, started by the
// first test that needs it (unit tests run without it).
var (
	envOnce sync.Once
	envCfg  *rest.Config
	envStop func() error
	envErr  error
)

// apiServer returns the shared API server's admin config, starting it on
// first use. It fails t (never skips) when the binaries are missing.
func apiServer(t *testing.T) *rest.Config {
	t.Helper()
	envOnce.Do(func() {
		start := time.Now()
		envCfg, envStop, envErr = kubetest.StartMain(filepath.Join("..", "config", "crd"))
		t.Logf("started kube-apiserver and etcd in %v", time.Since(start).Round(time.Millisecond))
	})
	if envErr != nil {
		t.Fatal(envErr)
	}
	return envCfg
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
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := v1alpha1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()
