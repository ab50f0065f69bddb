package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// IPPoolResource is the operator's IPPool resource, which IPPoolWatch
// reads.
var IPPoolResource = v1alpha1.GroupVersion.WithResource("ippools")

// IPPoolWatch serves one IPPool from the API server: an informer
// restricted to that object by a field selector on its name sends every
// new version to the agent, which swaps its table in; nothing polls. It
// keeps the latest version, so that events name the object the table came
// from.
//
// Make one with NewIPPoolWatch; the zero IPPoolWatch is not usable.
type IPPoolWatch struct {
	agent           *Agent
	client          dynamic.Interface
	namespace, name string
	latest          atomic.Pointer[unstructured.Unstructured]
}

// NewIPPoolWatch returns the watch of the IPPool namespace/name through
// client for a. It starts nothing; see Run.
func NewIPPoolWatch(a *Agent, client dynamic.Interface, namespace, name string) *IPPoolWatch {
	return &IPPoolWatch{agent: a, client: client, namespace: namespace, name: name}
}

// Run watches the IPPool until ctx is done. It returns once the first
// version has been loaded, or with an error when the informer does not
// sync before ctx is done or first (after its initial list) finds no such
// IPPool, or the first version does not load (the file mode's rule: the
// first load must succeed). After that it keeps watching in the
// background: every add or update is applied (a version that does not
// load is logged and the last good table stays), a delete is logged and
// the last table stays served.
func (w *IPPoolWatch) Run(ctx context.Context) error {
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(w.client, 0, w.namespace,
		func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", w.name).String()
		})
	informer := factory.ForResource(IPPoolResource).Informer()
	first := make(chan error, 1)
	var loaded atomic.Bool
	apply := func(obj any) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok || u.GetName() != w.name {
			return
		}
		w.latest.Store(u)
		_, err := w.load(u)
		if loaded.CompareAndSwap(false, true) {
			first <- err
		}
	}
	reg, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    apply,
		UpdateFunc: func(_, obj any) { apply(obj) },
		DeleteFunc: func(obj any) {
			w.agent.log.Error(nil, "IPPool deleted; serving its last table", "pool", w.namespace+"/"+w.name)
		},
	})
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	// The registration's HasSynced, not the informer's: it is true once
	// this handler has seen the initial list, so "first" is decided.
	if !cache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return fmt.Errorf("agent: watch IPPool %s/%s: %w", w.namespace, w.name, context.Cause(ctx))
	}
	select {
	case err := <-first:
		return err
	default:
		return fmt.Errorf("agent: IPPool %s/%s: not found", w.namespace, w.name)
	}
}

// load applies one version of the IPPool: its JSON is what kubectl get -o
// json prints, so it goes through the file mode's decoder.
func (w *IPPoolWatch) load(u *unstructured.Unstructured) (Update, error) {
	data, err := json.Marshal(u.Object)
	if err != nil {
		w.agent.log.Error(err, "IPPool rejected, table unchanged", "pool", w.namespace+"/"+w.name)
		return Update{}, err
	}
	return w.agent.Load(data)
}

// Latest is the latest version of the IPPool the watch has seen, or nil.
func (w *IPPoolWatch) Latest() *unstructured.Unstructured { return w.latest.Load() }

// DeclineEvents returns a decline hook (see WithDeclineHook) that records
// each DECLINE as a Warning event, reason AddressDeclined, on the object
// latest returns (the IPPool the table came from: IPPoolWatch.Latest)
// through recorder, so that the operator or a person sees an address in
// conflict where they look at the pool. Nothing is recorded while latest
// returns nil. The recorder queues; the hook does not block.
func DeclineEvents(latest func() *unstructured.Unstructured, recorder record.EventRecorder) func(Decline) {
	return func(d Decline) {
		obj := latest()
		if obj == nil {
			return
		}
		recorder.Eventf(obj, corev1.EventTypeWarning, "AddressDeclined",
			"client %s declined %s (another host answers for it?); not offered again until %s",
			d.MAC, d.Addr, d.Until.UTC().Format(time.RFC3339))
	}
}

// NewEventRecorder returns an event recorder that writes core/v1 Events
// through client as component "dhcpagent", and the function that flushes
// and stops it.
func NewEventRecorder(client kubernetes.Interface) (record.EventRecorder, func()) {
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	return b.NewRecorder(clientgoscheme.Scheme, corev1.EventSource{Component: "dhcpagent"}), b.Shutdown
}
