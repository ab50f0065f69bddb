package controller_test

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// One kube-apiserver for the package's integration tests, started by the
// first test that needs it (the pure tests run without it), with this
// provider's CRDs and Cluster API's IPAddressClaim, IPAddress and Cluster
// CRDs (CRDPaths and crdErr are set by TestMain).
var (
	env    kubetest.Shared
	crdErr error
)

func TestMain(m *testing.M) {
	var capi []string
	capi, crdErr = kubetest.ClusterAPICRDs()
	env.CRDPaths = append(capi, filepath.Join("..", "config", "crd"))
	os.Exit(kubetest.Main(m, &env))
}

// apiServer returns the shared API server's admin config, starting it on
// first use. It fails t (never skips) when the binaries or Cluster API's
// CRDs are missing.
func apiServer(t testing.TB) *rest.Config {
	t.Helper()
	if crdErr != nil {
		t.Fatal(crdErr)
	}
	return env.Config(t)
}

var scheme = kubetest.NewScheme(v1alpha1.AddToScheme, ipamv1.AddToScheme, clusterv1.AddToScheme)

// manager is one running provider process.
type manager struct {
	epoch  string
	losses atomic.Int64 // addresses found locked by another IPAddress's lock
	stop   func()       // cancels the manager and waits for it; again: nothing
}

// startManager runs the provider with epoch, watching namespace ns only
// (and cluster-scoped pools). t.Cleanup stops it.
func startManager(t testing.TB, cfg *rest.Config, ns, epoch string, now func() time.Time) *manager {
	t.Helper()
	return startManagerN(t, cfg, ns, epoch, now, 16)
}

// startManagerN is startManager reconciling workers claims at once.
func startManagerN(t testing.TB, cfg *rest.Config, ns, epoch string, now func() time.Time, workers int) *manager {
	t.Helper()
	return startManagerHooked(t, cfg, ns, epoch, now, workers, nil)
}

// startManagerHooked is startManagerN calling afterCreate, if not nil,
// after each create the provider makes, before the create returns to it.
func startManagerHooked(t testing.TB, cfg *rest.Config, ns, epoch string, now func() time.Time, workers int, afterCreate func(obj client.Object, err error)) *manager {
	t.Helper()
	m := &manager{epoch: epoch}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
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
							m.losses.Add(1)
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
	if _, err := controller.Setup(mgr, opts); err != nil {
		t.Fatal(err)
	}
	m.stop = kubetest.RunManager(t, mgr)
	return m
}

// never checks cond stays false for d.
func never(t testing.TB, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if ok, msg := cond(); ok {
			t.Fatalf("%s: %s", what, msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func create(t testing.TB, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

func get(t testing.TB, c client.Client, o client.Object) bool {
	t.Helper()
	err := c.Get(context.Background(), client.ObjectKeyFromObject(o), o)
	if client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	return err == nil
}

// IPAddress.
func waitAddress(t testing.TB, c client.Client, ns, name string) *ipamv1.IPAddress {
	t.Helper()
	claim := &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	kubetest.Eventually(t, 30*time.Second, "allocated to "+name, func() (bool, string) {
		if !get(t, c, claim) {
			return false, "claim not found"
		}
		return claim.Status.AddressRef.Name != "", fmt.Sprintf("status %+v", claim.Status)
	})
	ip := &ipamv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: claim.Status.AddressRef.Name}}
	if !get(t, c, ip) {
		t.Fatalf("claim %s: addressRef %q names no IPAddress", name, claim.Status.AddressRef.Name)
	}
	return ip
}

// waitReason waits until the claim's Ready condition is False with reason.
func waitReason(t testing.TB, c client.Client, ns, name, reason string) metav1.Condition {
	t.Helper()
	claim := &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	var got metav1.Condition
	kubetest.Eventually(t, 30*time.Second, name+" Ready=False "+reason, func() (bool, string) {
		if !get(t, c, claim) {
			return false, "claim not found"
		}
		cond, ok := readyCondition(claim)
		got = cond
		return ok && cond.Status == metav1.ConditionFalse && cond.Reason == reason, fmt.Sprintf("%+v", claim.Status)
	})
	if claim.Status.AddressRef.Name != "" {
		t.Errorf("claim %s: addressRef %q with Ready=False", name, claim.Status.AddressRef.Name)
	}
	return got
}

// checkUnique lists the IPAddresses of ns and fails t if two of one pool
// hold one address; it returns the addresses by IPAddress name.
func checkUnique(t testing.TB, c client.Client, ns string) map[string]netip.Addr {
	t.Helper()
	var list ipamv1.IPAddressList
	if err := c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	byName := map[string]netip.Addr{}
	seen := map[string]string{}
	var dups []string
	for _, ip := range list.Items {
		a := netip.MustParseAddr(ip.Spec.Address)
		k := ip.Spec.PoolRef.Kind + "/" + ip.Spec.PoolRef.Name + "/" + a.String()
		if other, ok := seen[k]; ok {
			dups = append(dups, fmt.Sprintf("%s held by %s and %s", k, other, ip.Name))
		}
		seen[k] = ip.Name
		byName[ip.Name] = a
	}
	if len(dups) > 0 {
		sort.Strings(dups)
		t.Fatalf("%d addresses handed out twice, first: %s", len(dups), dups[0])
	}
	return byName
}
