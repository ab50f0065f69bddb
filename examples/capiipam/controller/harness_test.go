package controller_test

import (
	"os"
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
)

// The package's integration tests share one kube-apiserver, started by the
// first test that needs it (capiipamtest.APIServer); the harness they use
// is package capiipamtest's, which the benchmarks share.
func TestMain(m *testing.M) {
	os.Exit(capiipamtest.Main(m))
}
