package kubetest

import (
	"context"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// RunManager starts mgr in the background and returns a stop function that
// cancels it and waits until Start has returned; stopping twice does
// nothing, and t.Cleanup stops it too. An error from Start fails t.
func RunManager(t testing.TB, mgr manager.Manager) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}
