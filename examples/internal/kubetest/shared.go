package kubetest

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// Shared is one kube-apiserver and etcd for all of a package's tests. The
// first test that calls Config starts them, so a package's pure tests run
// (and pass) without the binaries; Main stops them after the last test.
//
// The zero value holds no CRDs; set CRDPaths (as for Start) before the first
// Config. A Shared must not be copied after first use.
type Shared struct {
	// CRDPaths are the CRD files or folders installed at start.
	CRDPaths []string

	once  sync.Once
	start func(crdPaths ...string) (*rest.Config, func() error, error) // StartMain; replaced in tests
	cfg   *rest.Config
	stop  func() error
	err   error
}

// Config returns the shared API server's admin config, starting it on the
// first call. It fails t (never skips) when the start failed, on this call
// or an earlier one, so every test that needs the server reports why.
func (s *Shared) Config(t testing.TB) *rest.Config {
	t.Helper()
	s.once.Do(func() {
		start := s.start
		if start == nil {
			start = StartMain
		}
		began := time.Now()
		s.cfg, s.stop, s.err = start(s.CRDPaths...)
		if s.err == nil {
			t.Logf("kubetest: started kube-apiserver and etcd in %v", time.Since(began).Round(time.Millisecond))
		}
	})
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.cfg
}

// Stop stops the API server if Config started it, and returns the stop's
// error; without a start it does nothing and returns nil. Call it once,
// after the tests (Main does).
func (s *Shared) Stop() error {
	if s.stop == nil {
		return nil
	}
	stop := s.stop
	s.stop = nil
	return stop()
}

// Main runs a package's tests and then stops s: call it from TestMain as
// os.Exit(kubetest.Main(m, &shared)). The exit code is the tests' code, or
// 1 when they passed but the stop failed (the error goes to stderr): a
// control plane that does not stop cleanly is a failure, not noise.
func Main(m *testing.M, s *Shared) int {
	return stopAfter(m.Run(), s)
}

// stopAfter is Main after the tests have run with exit code code.
func stopAfter(code int, s *Shared) int {
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "kubetest: stop kube-apiserver and etcd:", err)
		code = max(code, 1)
	}
	return code
}

// NewScheme returns a new scheme with client-go's built-in types and those
// each addToScheme registers (an API package's AddToScheme). It panics when a
// registration fails: that is a programming error (one name for two types),
// not a condition a test handles, and it lets a package build its scheme
// once, in a variable.
func NewScheme(addToScheme ...func(*runtime.Scheme) error) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme}, addToScheme...) {
		if err := add(s); err != nil {
			panic(fmt.Sprintf("kubetest: scheme: %v", err))
		}
	}
	return s
}
