package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/go-logr/logr"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// IPPoolResource is the operator's IPPool resource, which IPPoolWatch
// reads.
var IPPoolResource = v1alpha1.GroupVersion.WithResource("ippools")

// IPPoolWatch serves one IPPool from the API server: an informer
// restricted to that object by a field selector on its name sends every
// new version to the Apply it was made with (the agent swaps its table
// in); nothing polls. It
// keeps the latest version, so that events name the object the table came
// from.
//
// Make one with NewIPPoolWatch; the zero IPPoolWatch is not usable.
type IPPoolWatch struct {
	apply           poolsource.Apply
	log             logr.Logger
	client          dynamic.Interface
	namespace, name string
	latest          atomic.Pointer[unstructured.Unstructured]
}

// NewIPPoolWatch returns the watch of the IPPool namespace/name through
// client, which delivers each version to apply and logs to log what it
// cannot decode and a delete. It starts nothing; see Run.
func NewIPPoolWatch(client dynamic.Interface, namespace, name string, apply poolsource.Apply, log logr.Logger) *IPPoolWatch {
	return &IPPoolWatch{apply: apply, log: log, client: client, namespace: namespace, name: name}
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
		err := w.load(u)
		if loaded.CompareAndSwap(false, true) {
			first <- err
		}
	}
	reg, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    apply,
		UpdateFunc: func(_, obj any) { apply(obj) },
		DeleteFunc: func(obj any) {
			w.log.Error(nil, "IPPool deleted; serving its last table", "pool", w.namespace+"/"+w.name)
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
func (w *IPPoolWatch) load(u *unstructured.Unstructured) error {
	data, err := json.Marshal(u.Object)
	if err != nil {
		w.log.Error(err, "IPPool rejected, table unchanged", "pool", w.namespace+"/"+w.name)
		return err
	}
	return poolsource.Deliver(data, w.apply, w.log)
}

// Latest is the latest version of the IPPool the watch has seen, or nil.
func (w *IPPoolWatch) Latest() *unstructured.Unstructured { return w.latest.Load() }
