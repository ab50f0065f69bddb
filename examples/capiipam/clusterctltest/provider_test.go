package clusterctltest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	vmmanager "github.com/vmnetkit/vmnetkit/examples/internal/manager"
)

// serviceAccount is the user capiipam's pods run as: the ServiceAccount of
// its components, which clusterctl init creates and binds to the
// generated role.
const serviceAccount = "system:serviceaccount:vmnetkit-system:vmnetkit-capiipam"

// writes records the writes a provider makes for claims (the claim itself,
// its IPAddress, its address's lock) and those made while the claim's
// Cluster was paused, as the API server showed it at the write.
type writes struct {
	admin client.Client // uncached: the Cluster as it is

	mu     sync.Mutex
	all    int
	paused []string
}

// check reads, before a write of verb on obj, whether obj is for a claim
// and whether that claim's Cluster is paused; done records the write once
// it succeeded. Read before the write, a Cluster shown paused was paused
// when the provider decided to write: a Cluster is unpaused once, and no
// cache shows it unpaused before the API server does.
func (w *writes) check(ctx context.Context, verb string, obj client.Object) (done func(error) error) {
	claim, ok := claimOf(obj)
	if !ok {
		return func(err error) error { return err }
	}
	paused, why := w.clusterPaused(ctx, claim)
	return func(err error) error {
		if err != nil {
			return err
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		w.all++
		if paused {
			w.paused = append(w.paused, fmt.Sprintf("%s %T %s for claim %s: %s", verb, obj, obj.GetName(), claim, why))
		}
		return nil
	}
}

// counts returns the writes for claims, and those for claims of paused
// Clusters.
func (w *writes) counts() (all int, paused []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all, append([]string(nil), w.paused...)
}

// clusterPaused reads claim and its Cluster from the API server: a Cluster
// paused, or not found (a claim's Cluster is created before it, in a move
// too), is paused.
func (w *writes) clusterPaused(ctx context.Context, claim types.NamespacedName) (bool, string) {
	c := &ipamv1.IPAddressClaim{}
	if err := w.admin.Get(ctx, claim, c); err != nil {
		return false, "" // gone: nothing to pause
	}
	cluster := &clusterv1.Cluster{}
	switch err := w.admin.Get(ctx, types.NamespacedName{Namespace: c.Namespace, Name: c.Spec.ClusterName}, cluster); {
	case apierrors.IsNotFound(err):
		return true, "its Cluster does not exist"
	case err != nil:
		return true, err.Error()
	}
	if cluster.Spec.Paused != nil && *cluster.Spec.Paused {
		return true, "its Cluster has spec.paused"
	}
	if _, ok := cluster.Annotations[clusterv1.PausedAnnotation]; ok {
		return true, "its Cluster has the paused annotation"
	}
	return false, ""
}

// claimOf names the claim a write on obj is for.
func claimOf(obj client.Object) (types.NamespacedName, bool) {
	switch o := obj.(type) {
	case *ipamv1.IPAddressClaim, *ipamv1.IPAddress:
		return client.ObjectKeyFromObject(o), true
	case *v1alpha1.VMNetIPAddressLock:
		return types.NamespacedName{Namespace: o.Spec.HolderNamespace, Name: o.Spec.HolderName}, o.Spec.HolderName != ""
	}
	return types.NamespacedName{}, false
}

// startProvider runs capiipam's controllers in this process against m, as
// its Deployment would run them: authenticated as its ServiceAccount,
// which holds only what clusterctl init bound to it. It records the writes
// for claims; the returned stop stops it (t.Cleanup does too).
func startProvider(t testing.TB, m managementCluster) (w *writes, stop func()) {
	t.Helper()
	w = &writes{admin: m.c}
	cfg := rest.CopyConfig(m.cfg)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: serviceAccount}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  vmmanager.CacheOptions(""),
		NewClient: func(cfg *rest.Config, opts client.Options) (client.Client, error) {
			c, err := client.NewWithWatch(cfg, opts)
			if err != nil {
				return nil, err
			}
			return interceptor.NewClient(c, interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					done := w.check(ctx, "create", obj)
					return done(c.Create(ctx, obj, opts...))
				},
				Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
					done := w.check(ctx, "update", obj)
					return done(c.Update(ctx, obj, opts...))
				},
				Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
					done := w.check(ctx, "patch", obj)
					return done(c.Patch(ctx, obj, patch, opts...))
				},
				Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
					done := w.check(ctx, "delete", obj)
					return done(c.Delete(ctx, obj, opts...))
				},
				SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
					done := w.check(ctx, "update "+sub, obj)
					return done(c.SubResource(sub).Update(ctx, obj, opts...))
				},
				SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
					done := w.check(ctx, "patch "+sub, obj)
					return done(c.SubResource(sub).Patch(ctx, obj, patch, opts...))
				},
			}), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var opts controller.Options
	opts.RetryWaiting, opts.SkipNameValidation = 250*time.Millisecond, true
	if _, err := controller.Setup(mgr, opts); err != nil {
		t.Fatal(err)
	}
	return w, kubetest.RunManager(t, mgr)
}
