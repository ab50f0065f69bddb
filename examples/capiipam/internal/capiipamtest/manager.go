package capiipamtest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	vmmanager "github.com/vmnetkit/vmnetkit/examples/internal/manager"
)

// Manager is one running provider process.
type Manager struct {
	Epoch  string
	Losses atomic.Int64 // addresses found locked by another IPAddress's address lock
	Stop   func()       // cancels the manager and waits for it; again: nothing
}

// StartManager runs the provider with epoch, watching namespace ns only
// (and cluster-scoped pools). t.Cleanup stops it.
func StartManager(t testing.TB, cfg *rest.Config, ns, epoch string, now func() time.Time) *Manager {
	t.Helper()
	return StartManagerN(t, cfg, ns, epoch, now, 16)
}

// StartManagerN is StartManager reconciling workers claims at once.
func StartManagerN(t testing.TB, cfg *rest.Config, ns, epoch string, now func() time.Time, workers int) *Manager {
	t.Helper()
	return StartManagerHooked(t, cfg, ns, epoch, now, workers, nil)
}

// StartManagerHooked is StartManagerN calling afterCreate, if not nil,
// after each create the provider makes, before the create returns to it.
func StartManagerHooked(t testing.TB, cfg *rest.Config, ns, epoch string, now func() time.Time, workers int, afterCreate func(obj client.Object, err error)) *Manager {
	t.Helper()
	return StartManagerSince(t, cfg, ns, epoch, now, nil, workers, afterCreate)
}

// StartManagerSince is StartManagerHooked with since, if not nil, as the
// provider's monotonic clock (controller.Options.Since): the lock-reclaim
// handshake's ages.
func StartManagerSince(t testing.TB, cfg *rest.Config, ns, epoch string, now func() time.Time, since func() time.Duration, workers int, afterCreate func(obj client.Object, err error)) *Manager {
	t.Helper()
	m := &Manager{Epoch: epoch}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  vmmanager.CacheOptions(ns),
		NewClient: func(cfg *rest.Config, opts client.Options) (client.Client, error) {
			c, err := client.NewWithWatch(cfg, opts)
			if err != nil {
				return nil, err
			}
			return interceptor.NewClient(c, interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					err := c.Create(ctx, obj, opts...)
					if l, ok := obj.(*v1alpha1.VMNetIPAddressLock); ok && apierrors.IsAlreadyExists(err) {
						// A loss only when another IPAddress holds the lock
						// (not this claim's own lock, taken before).
						other := &v1alpha1.VMNetIPAddressLock{}
						if c.Get(ctx, client.ObjectKeyFromObject(l), other) == nil &&
							(other.Spec.HolderNamespace != l.Spec.HolderNamespace || other.Spec.HolderName != l.Spec.HolderName) {
							m.Losses.Add(1)
						}
					}
					if afterCreate != nil {
						afterCreate(obj, err)
					}
					return err
				},
			}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var opts controller.Options
	opts.Epoch, opts.Now, opts.RetryWaiting, opts.MaxConcurrentClaims, opts.SkipNameValidation = epoch, now, 250*time.Millisecond, workers, true
	opts.Since = since
	if _, err := controller.Setup(mgr, opts); err != nil {
		t.Fatal(err)
	}
	m.Stop = kubetest.RunManager(t, mgr)
	return m
}

// Faster returns a monotonic clock that runs x times as fast as the
// process's, from now: for the lock-reclaim handshake's ages in tests.
func Faster(x int) func() time.Duration {
	start := time.Now()
	return func() time.Duration { return time.Since(start) * time.Duration(x) }
}
