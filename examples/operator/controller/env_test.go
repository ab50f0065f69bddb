package controller_test

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// One kube-apiserver for the package's integration tests, started by the
// first test that needs it (unit tests run without it), with the operator's
// CRDs and KubeVirt's VirtualMachine and VirtualMachineInstance CRDs
// (testdata/kubevirt, generated from a pinned KubeVirt release). The
// operator's controllers started by Setup alone do not read them.
var env = kubetest.Shared{CRDPaths: []string{filepath.Join("..", "config", "crd"), filepath.Join("testdata", "kubevirt")}}

// apiServer returns the shared API server's admin config, starting it on
// first use. It fails t (never skips) when the binaries are missing.
func apiServer(t testing.TB) *rest.Config { return env.Config(t) }

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m, &env)) }

var scheme = kubetest.NewScheme(v1alpha1.AddToScheme, kubevirt.AddToScheme)
