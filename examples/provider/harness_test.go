package provider

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
)

// One kube-apiserver serves every test that needs one; it starts with the
// first such test, so the pure tests run without the binaries.
var apiServer = kubetest.Shared{CRDPaths: []string{filepath.Join("config", "crd")}}

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m, &apiServer)) }

// scheme knows the core types and VMMachine.
var scheme = kubetest.NewScheme(infrav1.AddToScheme)

// kubeEnv returns the shared API server's config and a direct (uncached)
// client, starting the server with the VMMachine CRD on first use, and a
// fresh namespace for the test.
func kubeEnv(t *testing.T) (*rest.Config, client.Client, string) {
	t.Helper()
	cfg := apiServer.Config(t)
	c := kubetest.NewClient(t, cfg, scheme)
	return cfg, c, kubetest.CreateNamespace(t, c, "provider")
}

// fakeClock is the injected clock: it moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// world is a test's view of the API server: the machine's and the Node's
// side, played the way a hypervisor sync and a kubelet would.
type world struct {
	t  *testing.T
	c  client.Client
	ns string
}

func (w world) ctx() context.Context { return w.t.Context() }

// adapter is a Reconciler on the test's clock whose writes are counted.
func (w world) adapter(clock *fakeClock) (*Reconciler, *atomic.Int64) {
	writes := new(atomic.Int64)
	return &Reconciler{Client: countingClient{w.c, writes}, Now: clock.Now}, writes
}

func (w world) createMachine(name string, devices []infrav1.NetworkDevice) *infrav1.VMMachine {
	w.t.Helper()
	m := machine(w.ns, name, devices)
	if err := w.c.Create(w.ctx(), m); err != nil {
		w.t.Fatalf("create machine: %v", err)
	}
	return m
}

func (w world) getMachine(name string) *infrav1.VMMachine {
	w.t.Helper()
	var m infrav1.VMMachine
	if err := w.c.Get(w.ctx(), client.ObjectKey{Namespace: w.ns, Name: name}, &m); err != nil {
		w.t.Fatalf("get machine: %v", err)
	}
	return &m
}

// reportNICs writes status.network as the hypervisor sync would,
// retrying when a running controller wrote the status in between.
func (w world) reportNICs(name string, nics []infrav1.NICStatus) {
	w.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := w.getMachine(name)
		m.Status.Network = nics
		return w.c.Status().Update(w.ctx(), m)
	})
	if err != nil {
		w.t.Fatalf("report NICs: %v", err)
	}
}

// setNode creates the Node if needed and sets its InternalIP addresses,
// as the kubelet would.
func (w world) setNode(name string, internalIPs []string) {
	w.t.Helper()
	var n corev1.Node
	switch err := w.c.Get(w.ctx(), client.ObjectKey{Name: name}, &n); {
	case err == nil:
	case client.IgnoreNotFound(err) == nil:
		n = corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := w.c.Create(w.ctx(), &n); err != nil {
			w.t.Fatalf("create node: %v", err)
		}
		w.t.Cleanup(func() { _ = w.c.Delete(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}) })
	default:
		w.t.Fatalf("get node: %v", err)
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: name}}
	for _, a := range internalIPs {
		n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: a})
	}
	if err := w.c.Status().Update(w.ctx(), &n); err != nil {
		w.t.Fatalf("update node status: %v", err)
	}
}

func (w world) reconcile(r *Reconciler, name string) reconcile.Result {
	w.t.Helper()
	res, err := r.Reconcile(w.ctx(), reconcile.Request{NamespacedName: client.ObjectKey{Namespace: w.ns, Name: name}})
	if err != nil {
		w.t.Fatalf("reconcile: %v", err)
	}
	return res
}

func keyOf(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }

// countingClient counts the writes made through it, status writes
// included: the API server does not bump resourceVersion for a write that
// changes nothing, so resourceVersion alone cannot show a needless write.
type countingClient struct {
	client.Client
	writes *atomic.Int64
}

func (c countingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.writes.Add(1)
	return c.Client.Create(ctx, obj, opts...)
}

func (c countingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.writes.Add(1)
	return c.Client.Update(ctx, obj, opts...)
}

func (c countingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.writes.Add(1)
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c countingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.writes.Add(1)
	return c.Client.Delete(ctx, obj, opts...)
}

func (c countingClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	c.writes.Add(1)
	return c.Client.Apply(ctx, obj, opts...)
}

func (c countingClient) Status() client.SubResourceWriter {
	return countingStatus{c.Client.Status(), c.writes}
}

func (c countingClient) SubResource(sub string) client.SubResourceClient {
	return countingSubResource{c.Client.SubResource(sub), c.writes}
}

type countingStatus struct {
	client.SubResourceWriter
	writes *atomic.Int64
}

func (s countingStatus) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	s.writes.Add(1)
	return s.SubResourceWriter.Create(ctx, obj, sub, opts...)
}

func (s countingStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.writes.Add(1)
	return s.SubResourceWriter.Update(ctx, obj, opts...)
}

func (s countingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.writes.Add(1)
	return s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

type countingSubResource struct {
	client.SubResourceClient
	writes *atomic.Int64
}

func (s countingSubResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.writes.Add(1)
	return s.SubResourceClient.Update(ctx, obj, opts...)
}

func (s countingSubResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.writes.Add(1)
	return s.SubResourceClient.Patch(ctx, obj, patch, opts...)
}
