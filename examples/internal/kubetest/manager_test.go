package kubetest

import (
	"context"
	"sync/atomic"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// blockingManager's Start blocks until its context is cancelled.
type blockingManager struct {
	manager.Manager // nil: only Start is called
	started         chan struct{}
	returned        atomic.Bool
}

func (m *blockingManager) Start(ctx context.Context) error {
	close(m.started)
	<-ctx.Done()
	m.returned.Store(true)
	return nil
}

func TestRunManagerStopWaits(t *testing.T) {
	m := &blockingManager{started: make(chan struct{})}
	stop := RunManager(t, m)
	<-m.started
	if m.returned.Load() {
		t.Fatal("Start returned before stop")
	}
	stop()
	if !m.returned.Load() {
		t.Error("stop returned before Start did")
	}
	stop() // a second stop (and the Cleanup's) does nothing and does not block
}
