package provider

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/conditions"
	infrav1 "github.com/vmnetkit/vmnetkit/examples/provider/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
	"github.com/vmnetkit/vmnetkit/readiness"
)

// wantStatus is the decided part of a stored status.
type wantStatus struct {
	Addresses []infrav1.MachineAddress
	Condition conditions.Condition
}

func decided(t *testing.T, m *infrav1.VMMachine) wantStatus {
	t.Helper()
	c, ok := kube.FindMeta(m.Status.Conditions, ConditionVMProvisioned)
	if !ok {
		t.Fatalf("no %s condition in %+v", ConditionVMProvisioned, m.Status)
	}
	return wantStatus{Addresses: m.Status.Addresses, Condition: c}
}

func expect(name string, gen int64, at time.Time, obs observation) wantStatus {
	c := conditions.Condition{
		Type: ConditionVMProvisioned, Status: conditions.ConditionFalse, ObservedGeneration: gen,
		LastTransitionTime: at, Reason: readiness.ReasonWaitingForNetworkAddresses, Message: obs.wantMessage,
	}
	if obs.wantReady {
		c.Status, c.Reason = conditions.ConditionTrue, ReasonNetworkReady
	}
	return wantStatus{Addresses: wantAddresses(name, obs.wantAddrs), Condition: c}
}

// TestReconcileConfigurations writes the status of the five common
// configurations through a real kube-apiserver, first pending, then ready,
// and checks that repeated reconciles of an unchanged state write nothing.
func TestReconcileConfigurations(t *testing.T) {
	_, c, ns := kubeEnv(t)
	for i, cfg := range configurations {
		t.Run(cfg.name, func(t *testing.T) {
			w := world{t: t, c: c, ns: ns}
			clock := newFakeClock()
			r, writes := w.adapter(clock)
			name := ns + "-" + string(rune('a'+i))
			w.createMachine(name, cfg.devices)

			t0 := clock.Now()
			for _, step := range []struct {
				phase string
				obs   observation
			}{{"pending", cfg.pending}, {"ready", cfg.ready}} {
				w.reportNICs(name, step.obs.nics)
				if step.obs.nodeAddrs != nil {
					w.setNode(name, step.obs.nodeAddrs)
				}
				w.reconcile(r, name)
				got := w.getMachine(name)
				want := expect(name, got.Generation, clock.Now(), step.obs)
				if diff := cmp.Diff(want, decided(t, got)); diff != "" {
					t.Fatalf("%s: stored status (-want +got):\n%s", step.phase, diff)
				}

				// Unchanged state, later clock: no write, no moved time.
				clock.Advance(time.Minute)
				before := writes.Load()
				for range 3 {
					w.reconcile(r, name)
				}
				if n := writes.Load() - before; n != 0 {
					t.Errorf("%s: %d writes from repeated reconciles of an unchanged state, want 0", step.phase, n)
				}
				again := w.getMachine(name)
				if again.ResourceVersion != got.ResourceVersion {
					t.Errorf("%s: repeated reconcile wrote: resourceVersion %s -> %s", step.phase, got.ResourceVersion, again.ResourceVersion)
				}
				if diff := cmp.Diff(want, decided(t, again)); diff != "" {
					t.Errorf("%s: status after repeated reconciles (-want +got):\n%s", step.phase, diff)
				}
				clock.Advance(time.Minute)
			}
			if got := decided(t, w.getMachine(name)).Condition.LastTransitionTime; !got.After(t0) {
				t.Errorf("ready transition time %v did not move from the pending one %v", got, t0)
			}
		})
	}
}

// TestReconcileNodeAppearsLater: the guest tools never report the DHCP
// lease; the Node registering with its address completes the machine.
func TestReconcileNodeAppearsLater(t *testing.T) {
	_, c, ns := kubeEnv(t)
	w := world{t: t, c: c, ns: ns}
	clock := newFakeClock()
	r, writes := w.adapter(clock)
	name := ns + "-vm"
	w.createMachine(name, []infrav1.NetworkDevice{device("IPV4_DHCP", mac0)})
	w.reportNICs(name, []infrav1.NICStatus{nic(mac0, "fe80::5054:ff:fe12:3456")})

	t0 := clock.Now()
	w.reconcile(r, name)
	pending := observation{wantMessage: "nic 0 (52:54:00:12:34:56): waiting for dhcp4"}
	if diff := cmp.Diff(expect(name, 1, t0, pending), decided(t, w.getMachine(name))); diff != "" {
		t.Fatalf("before the Node (-want +got):\n%s", diff)
	}

	// A Node without addresses yet changes nothing.
	clock.Advance(time.Minute)
	w.setNode(name, nil)
	rv, before := w.getMachine(name).ResourceVersion, writes.Load()
	w.reconcile(r, name)
	if n := writes.Load() - before; n != 0 {
		t.Errorf("a Node without addresses made %d writes, want 0", n)
	}
	if got := w.getMachine(name).ResourceVersion; got != rv {
		t.Errorf("a Node without addresses changed the machine: resourceVersion %s -> %s", rv, got)
	}

	t1 := clock.Advance(time.Minute)
	w.setNode(name, []string{"10.0.0.5"})
	w.reconcile(r, name)
	ready := observation{wantReady: true, wantAddrs: []string{"10.0.0.5"}}
	if diff := cmp.Diff(expect(name, 1, t1, ready), decided(t, w.getMachine(name))); diff != "" {
		t.Fatalf("after the Node (-want +got):\n%s", diff)
	}
}

// TestReconcileMessageChangeKeepsTransitionTime: a status write that only
// changes what the machine waits for keeps the transition time.
func TestReconcileMessageChangeKeepsTransitionTime(t *testing.T) {
	_, c, ns := kubeEnv(t)
	w := world{t: t, c: c, ns: ns}
	clock := newFakeClock()
	r, _ := w.adapter(clock)
	name := ns + "-vm"
	w.createMachine(name, []infrav1.NetworkDevice{device("IPV4_DHCP", mac0), device("IPV4_DHCP", mac1)})
	w.reportNICs(name, []infrav1.NICStatus{nic(mac0), nic(mac1)})
	t0 := clock.Now()
	w.reconcile(r, name)
	rv := w.getMachine(name).ResourceVersion

	clock.Advance(time.Minute)
	w.reportNICs(name, []infrav1.NICStatus{nic(mac0, "10.0.0.5"), nic(mac1)})
	w.reconcile(r, name)
	got := w.getMachine(name)
	want := expect(name, 1, t0, observation{wantMessage: "nic 1 (52:54:00:12:34:57): waiting for dhcp4", wantAddrs: []string{"10.0.0.5"}})
	if diff := cmp.Diff(want, decided(t, got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got.ResourceVersion == rv {
		t.Errorf("the new message and address were not written")
	}
}

// TestReconcileInvalidSpec: a spec the adapter cannot parse is reported,
// and fixing it (a new generation) is picked up.
func TestReconcileInvalidSpec(t *testing.T) {
	_, c, ns := kubeEnv(t)
	w := world{t: t, c: c, ns: ns}
	clock := newFakeClock()
	r, _ := w.adapter(clock)
	r.PendingRequeue = 10 * time.Second
	name := ns + "-vm"
	w.createMachine(name, []infrav1.NetworkDevice{device("ipv4_dhcp", mac0)})
	w.reportNICs(name, []infrav1.NICStatus{nic(mac0, "10.0.0.5")})
	if res := w.reconcile(r, name); res != (reconcile.Result{}) {
		t.Errorf("invalid spec: result %+v, want no requeue (waiting will not fix it)", res)
	}
	got := w.getMachine(name)
	want := wantStatus{
		Addresses: wantAddresses(name, nil),
		Condition: conditions.Condition{
			Type: ConditionVMProvisioned, Status: conditions.ConditionFalse, ObservedGeneration: 1, LastTransitionTime: clock.Now(),
			Reason:  readiness.ReasonInvalidNetworkSpec,
			Message: `nic 0: readiness: parse device type "ipv4_dhcp": unknown device type (want one of NONE, IPV4, IPV6, IPV4V6, IPV4_DHCP, IPV6_DHCP, IPV4V6_DHCP)`,
		},
	}
	if diff := cmp.Diff(want, decided(t, got)); diff != "" {
		t.Fatalf("invalid spec (-want +got):\n%s", diff)
	}

	got.Spec.Network.Devices[0].Type = "IPV4_DHCP"
	if err := c.Update(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	t1 := clock.Advance(time.Minute)
	w.reconcile(r, name)
	want = expect(name, 2, t1, observation{wantReady: true, wantAddrs: []string{"10.0.0.5"}})
	if diff := cmp.Diff(want, decided(t, w.getMachine(name))); diff != "" {
		t.Fatalf("fixed spec (-want +got):\n%s", diff)
	}
}

// fakeHypervisor is a Hypervisor that is polled, not watched.
type fakeHypervisor struct {
	nics []readiness.NIC
	err  error
}

func (h *fakeHypervisor) NICs(context.Context, *infrav1.VMMachine) ([]readiness.NIC, error) {
	return h.nics, h.err
}

// TestReconcileHypervisor: NICs from an injected Hypervisor instead of
// status.network; a pending machine asks to be polled again; a failing
// Hypervisor writes nothing.
func TestReconcileHypervisor(t *testing.T) {
	_, c, ns := kubeEnv(t)
	w := world{t: t, c: c, ns: ns}
	clock := newFakeClock()
	hv := &fakeHypervisor{nics: ReportedNICs([]infrav1.NICStatus{nic(mac0)})}
	r, writes := w.adapter(clock)
	r.Hypervisor, r.PendingRequeue = hv, 10*time.Second
	name := ns + "-vm"
	w.createMachine(name, []infrav1.NetworkDevice{device("IPV4_DHCP", mac0)})

	if res := w.reconcile(r, name); res.RequeueAfter != 10*time.Second {
		t.Errorf("pending: result %+v, want RequeueAfter 10s", res)
	}
	before := writes.Load()

	hv.err = errors.New("guest tools not running")
	if _, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: keyOf(ns, name)}); err == nil {
		t.Errorf("a failing Hypervisor gave no error")
	}
	if n := writes.Load() - before; n != 0 {
		t.Errorf("a failing Hypervisor made %d writes, want 0", n)
	}

	hv.nics, hv.err = ReportedNICs([]infrav1.NICStatus{nic(mac0, "10.0.0.5")}), nil
	if res := w.reconcile(r, name); res != (reconcile.Result{}) {
		t.Errorf("ready: result %+v, want none", res)
	}
	want := expect(name, 1, clock.Now(), observation{wantReady: true, wantAddrs: []string{"10.0.0.5"}})
	if diff := cmp.Diff(want, decided(t, w.getMachine(name))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestReconcileMissingMachine: a request for a machine that is gone is done.
func TestReconcileMissingMachine(t *testing.T) {
	_, c, ns := kubeEnv(t)
	r := &Reconciler{Client: c}
	res, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: keyOf(ns, "gone")})
	if err != nil || res != (reconcile.Result{}) {
		t.Errorf("Reconcile(gone) = %+v, %v; want nothing", res, err)
	}
}
