package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/apiserver"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// ippoolObject is the lab pool as the operator's IPPool object, with
// status.allocated set to allocated.
func ippoolObject(t *testing.T, name string, allocated map[string]string) *unstructured.Unstructured {
	t.Helper()
	p := labtest.Pool(allocated)
	obj := map[string]any{
		"apiVersion": apiserver.IPPoolResource.GroupVersion().String(),
		"kind":       "IPPool",
		"metadata":   map[string]any{"name": name, "namespace": "default"},
	}
	spec, err := json.Marshal(p.Spec.IPPoolSpec)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(spec, &s); err != nil {
		t.Fatal(err)
	}
	s["network"] = "lab"
	s["leaseTime"] = "10m"
	obj["spec"] = s
	return &unstructured.Unstructured{Object: obj}
}

// setAllocated writes status.allocated of the IPPool through the status
// subresource, as the operator does.
func setAllocated(t *testing.T, ctx context.Context, c dynamic.ResourceInterface, name string, allocated map[string]string) {
	t.Helper()
	u, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	for k, v := range allocated {
		m[k] = v
	}
	if err := unstructured.SetNestedField(u.Object, m, "status", "allocated"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateStatus(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// startIPPoolAPI starts a kube-apiserver with the operator's CRDs and
// returns clients of it, the IPPools of namespace default, and a context
// that ends after 60 s or with the test.
func startIPPoolAPI(t *testing.T) (context.Context, dynamic.Interface, kubernetes.Interface, dynamic.ResourceInterface) {
	t.Helper()
	cfg := kubetest.Start(t, filepath.Join("..", "..", "operator", "config", "crd"))
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx, dc, kc, dc.Resource(apiserver.IPPoolResource).Namespace("default")
}

// waitDeclinedEvent waits for the first AddressDeclined event in namespace
// default and returns it; when ctx ends first, the test fails with what
// detail says.
func waitDeclinedEvent(t *testing.T, ctx context.Context, kc kubernetes.Interface, detail func() string) corev1.Event {
	t.Helper()
	for {
		events, err := kc.CoreV1().Events("default").List(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("reason", "AddressDeclined").String(),
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(events.Items) > 0 {
			return events.Items[0]
		}
		if ctx.Err() != nil {
			t.Fatal("no AddressDeclined event" + detail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestIPPoolWatch runs the agent's API-server mode against a real
// kube-apiserver and etcd: the first version of the IPPool loads before
// Run returns; a status change reaches the table through the watch (the
// informer has no resync and nothing polls); a DECLINE becomes a Warning
// event on the IPPool.
func TestIPPoolWatch(t *testing.T) {
	ctx, dc, kc, pools := startIPPoolAPI(t)
	for _, name := range []string{"lab", "lab-other"} { // the other pool must not reach the table
		if _, err := pools.Create(ctx, ippoolObject(t, name, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setAllocated(t, ctx, pools, "lab", dhcp4test.LabAllocated())
	setAllocated(t, ctx, pools, "lab-other", map[string]string{"10.77.0.30": dhcp4test.MACA})

	logs := &logtest.Buffer{}
	recorder, stopEvents := apiserver.NewEventRecorder(kc)
	defer stopEvents()
	var w *apiserver.IPPoolWatch
	record := apiserver.DeclineEvents(func() *unstructured.Unstructured { return w.Latest() }, recorder)
	a := New(nil, WithLogger(logtest.Logger(logs, packetLevel)), WithDeclineHook(func(d Decline) { record(d.MAC, d.Addr, d.Until) }))
	w = apiserver.NewIPPoolWatch(dc, "default", "lab", poolsource.Loads(a.Apply), logtest.Logger(logs, packetLevel))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent log:\n%s", logs)
		}
	})
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	addrOf := func() string {
		l, ok := a.Table().Lookup(leasestore.MustParseMAC(dhcp4test.MACA))
		if !ok {
			return "none"
		}
		return l.Addr.String()
	}
	if got := addrOf(); got != "10.77.0.10" {
		t.Fatalf("after Run: macA at %s, want 10.77.0.10", got)
	}

	start := time.Now()
	setAllocated(t, ctx, pools, "lab", dhcp4test.MovedAllocated())
	for addrOf() != "10.77.0.20" {
		if ctx.Err() != nil {
			t.Fatalf("the status change did not reach the table; macA at %s", addrOf())
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("status change reached the table in %v", time.Since(start).Round(time.Millisecond))
	setAllocated(t, ctx, pools, "lab-other", map[string]string{"10.77.0.31": dhcp4test.MACA})
	setAllocated(t, ctx, pools, "lab", map[string]string{"10.77.0.11": dhcp4test.MACB}) // macA removed
	for addrOf() != "none" {
		if ctx.Err() != nil {
			t.Fatalf("the removal did not reach the table; macA at %s", addrOf())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if s := a.Stats(time.Now()); s.Pool != "default/lab" || s.Loads != 3 {
		t.Errorf("served %s after %d loads, want default/lab after 3 (the other pool's changes are not seen)", s.Pool, s.Loads)
	}

	// A DECLINE of macB's address, right after the ACK that bound it,
	// becomes an event on the IPPool.
	a.Handle(&recordingConn{}, nil, dhcp4test.Selecting(t, dhcp4test.MACB, dhcp4test.ServerIP, dhcp4test.AddrB))
	a.Handle(&recordingConn{}, nil, dhcp4test.Decline(t, dhcp4test.MACB, dhcp4test.AddrB, dhcpv4.WithOption(dhcpv4.OptMessage("arp conflict"))))
	e := waitDeclinedEvent(t, ctx, kc, func() string { return "" })
	lab, err := pools.Get(ctx, "lab", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s %s/%s %s uid=%v", e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.InvolvedObject.APIVersion,
		e.InvolvedObject.UID == lab.GetUID())
	if want := "Warning IPPool/lab network.vmnetkit.dev/v1alpha1 uid=true"; got != want {
		t.Errorf("event on %s, want %s", got, want)
	}
	if !strings.HasPrefix(e.Message, "client 52:54:00:aa:00:02 declined 10.77.0.11 ") || e.Source.Component != "dhcpagent" {
		t.Errorf("event message %q from %q", e.Message, e.Source.Component)
	}
}
