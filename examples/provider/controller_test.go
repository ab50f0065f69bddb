package provider

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// countingHypervisor reads status.network, like the default, and counts
// the reconciles that got that far.
type countingHypervisor struct{ calls atomic.Int64 }

func (h *countingHypervisor) NICs(_ context.Context, m *infrav1.VMMachine) ([]readiness.NIC, error) {
	h.calls.Add(1)
	return ReportedNICs(m.Status.Network), nil
}

// TestControllerNodeAppearsLater runs the adapter in a controller-runtime
// manager: the Node watch completes a pending DHCP NIC without any poll,
// and an event that changes nothing makes no status write.
func TestControllerNodeAppearsLater(t *testing.T) {
	cfg, c, ns := kubeEnv(t)
	w := world{t: t, c: c, ns: ns}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	hv := &countingHypervisor{}
	writes := new(atomic.Int64)
	r := &Reconciler{Client: countingClient{mgr.GetClient(), writes}, Hypervisor: hv, Now: clock.Now}
	skipNameValidation := true // -count=N builds the controller N times in one process
	if err := r.SetupWithManager(t.Context(), mgr, controller.Options{SkipNameValidation: &skipNameValidation}); err != nil {
		t.Fatal(err)
	}
	kubetest.RunManager(t, mgr)

	name := ns + "-vm"
	w.createMachine(name, []infrav1.NetworkDevice{device("IPV4_DHCP", mac0)})
	w.reportNICs(name, []infrav1.NICStatus{nic(mac0)})
	provisioned := func() (conditions.Condition, bool) {
		return kube.FindMeta(w.getMachine(name).Status.Conditions, ConditionVMProvisioned)
	}
	kubetest.Eventually(t, 30*time.Second, "VMProvisioned False", func() (bool, string) {
		cond, ok := provisioned()
		return ok && cond.Status == conditions.ConditionFalse, fmt.Sprintf("%+v (found: %v)", cond, ok)
	})

	t1 := clock.Advance(time.Minute)
	w.setNode(name, []string{"10.0.0.5"})
	kubetest.Eventually(t, 30*time.Second, "VMProvisioned True after the Node registered", func() (bool, string) {
		cond, ok := provisioned()
		return ok && cond.Status == conditions.ConditionTrue, fmt.Sprintf("%+v (found: %v)", cond, ok)
	})
	want := expect(name, 1, t1, observation{wantReady: true, wantAddrs: []string{"10.0.0.5"}})
	if diff := cmp.Diff(want, decided(t, w.getMachine(name))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// A metadata change wakes the controller; with nothing to decide it
	// must not write (a write would wake it again: the hot loop).
	clock.Advance(time.Minute)
	m := w.getMachine(name)
	m.Labels = map[string]string{"touched": "yes"}
	calls, before := hv.calls.Load(), writes.Load()
	if err := c.Update(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, 30*time.Second, "a reconcile of the relabelled machine", func() (bool, string) {
		n := hv.calls.Load()
		return n > calls, fmt.Sprintf("%d hypervisor calls, %d before", n, calls)
	})
	time.Sleep(time.Second) // room for a write, and for the loop it would start
	if n := writes.Load() - before; n != 0 {
		t.Errorf("%d writes after an event with nothing to decide, want 0", n)
	}
	if got := w.getMachine(name).ResourceVersion; got != m.ResourceVersion {
		t.Errorf("a reconcile with nothing to decide wrote: resourceVersion %s -> %s", m.ResourceVersion, got)
	}
	if n := hv.calls.Load() - calls; n > 2 {
		t.Errorf("%d reconciles after one event, want 1 (at most 2)", n)
	}
	if diff := cmp.Diff(want, decided(t, w.getMachine(name))); diff != "" {
		t.Errorf("after the no-op event (-want +got):\n%s", diff)
	}
}
