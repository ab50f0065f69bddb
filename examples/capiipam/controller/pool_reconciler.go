package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"reflect"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/conflict"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/kube"
)

// maxProblemEvents bounds the Events one build records; the condition
// counts them all.
const maxProblemEvents = 10

// poolReconciler feeds one kind of pool object to its cacheready.Machine
// and carries out the machine's decisions in the order it gives them:
// write the published condition (and the epoch beside it), then drop or
// build the in-memory pool from the informer cache of IPAddresses. It also
// keeps the pool's finalizer and address counts.
type poolReconciler struct {
	kind     string
	newObj   func() v1alpha1.Pool
	client   client.Client // writes, and the informer cache of IPAddresses
	reader   client.Reader // uncached reads: status writes need the latest resourceVersion
	cache    *poolCache
	recorder record.EventRecorder
	now      func() time.Time
	since    func() time.Duration // monotonic: the counts' pace (countsDelay)
}

func (r *poolReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := poolKey{Kind: r.kind, Namespace: req.Namespace, Name: req.Name}
	obj := r.newObj()
	if err := r.reader.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			if e := r.cache.Remove(key); e != nil {
				e.step(cacheready.Deleted{})
			}
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		return r.deleting(ctx, key, obj)
	}
	if controllerutil.AddFinalizer(obj, PoolFinalizer) {
		if err := r.client.Update(ctx, obj); err != nil {
			return conflict.Requeue(err)
		}
	}
	e := r.cache.Entry(key, obj.GetUID())
	// again: the resync a burst's last events left waiting runs too.
	counts, again, err := r.syncEntry(ctx, e, key, obj)
	if err != nil || counts == nil {
		res, err := conflict.Requeue(err)
		if res.IsZero() && err == nil {
			res.RequeueAfter = again
		}
		return res, err
	}
	// Written after syncEntry let go of e.mu: claims allocate meanwhile.
	res, err := conflict.Requeue(r.client.Status().Update(ctx, counts))
	if res.IsZero() && err == nil {
		res.RequeueAfter = again
	}
	return res, err
}

// deleting drops the pool's cache and lets the pool go once no IPAddress
// of it is left, as read from the API server (the informer may lag behind
// a create).
func (r *poolReconciler) deleting(ctx context.Context, key poolKey, obj v1alpha1.Pool) (reconcile.Result, error) {
	if e, _ := r.cache.Get(key); e != nil {
		e.step(cacheready.Observed{Generation: obj.GetGeneration(), Deleting: true})
	}
	if !controllerutil.ContainsFinalizer(obj, PoolFinalizer) {
		return reconcile.Result{}, nil
	}
	var list ipamv1.IPAddressList
	if err := r.reader.List(ctx, &list, client.InNamespace(key.Namespace)); err != nil {
		return reconcile.Result{}, err
	}
	n := 0
	for i := range list.Items {
		if poolOf(&list.Items[i]) == key {
			n++
		}
	}
	if n > 0 {
		// Each IPAddress's deletion requeues the pool.
		r.recorder.Eventf(obj, corev1.EventTypeNormal, "DeletionBlocked", "%d IPAddresses of the pool exist", n)
		return reconcile.Result{}, nil
	}
	// No IPAddress of the pool is left: neither is anything its locks
	// protect (a lock left by a process stopped between its lock and its
	// IPAddress).
	if err := r.client.DeleteAllOf(ctx, &v1alpha1.VMNetIPAddressLock{}, client.MatchingLabels{PoolLabel: poolHash(key)}); err != nil {
		return reconcile.Result{}, err
	}
	controllerutil.RemoveFinalizer(obj, PoolFinalizer)
	return conflict.Requeue(r.client.Update(ctx, obj))
}

// syncLocked feeds obj, the pool as just read, to e's machine, and
// returns obj with new counts to write, or nil when they have not changed.
func (r *poolReconciler) syncLocked(ctx context.Context, e *poolEntry, key poolKey, obj v1alpha1.Pool) (v1alpha1.Pool, error) {
	m := e.machine
	if m.State() != cacheready.StateUnobserved && obj.GetGeneration() > m.Generation() {
		spec, pre, _ := parsePool(key, obj.PoolSpec())
		changed := e.ipamPool == nil || !reflect.DeepEqual(e.spec, spec) || !maps.Equal(e.pre, pre)
		if err := r.applyLocked(ctx, e, key, obj, cacheready.GenerationChanged{Generation: obj.GetGeneration(), SpecChanged: changed}); err != nil {
			return nil, err
		}
	}
	st := obj.PoolStatus()
	observed := cacheready.Observed{
		Generation:  obj.GetGeneration(),
		Paused:      hasKey(obj.GetAnnotations(), PausedAnnotation),
		StoredEpoch: st.CacheEpoch,
	}
	if c, ok := kube.FindMeta(st.Conditions, cacheready.Type); ok {
		observed.Stored = &c
	}
	if err := r.applyLocked(ctx, e, key, obj, observed); err != nil {
		return nil, err
	}
	if !e.readyLocked() {
		return nil, nil
	}
	e.resyncDueLocked(r.now())
	upd := obj.DeepCopyObject().(v1alpha1.Pool)
	writeCountsLocked(upd.PoolStatus(), e, obj.GetGeneration(), r.now())
	if reflect.DeepEqual(upd.PoolStatus(), obj.PoolStatus()) {
		return nil, nil
	}
	return upd, nil
}

// parsePool returns the Spec of the addresses of s, the spec of the pool
// key, and the address s pre-allocates to each claim (namespace/name), or
// the errors of both, every field named.
func parsePool(key poolKey, s *v1alpha1.PoolSpec) (ipam.Spec, map[string]netip.Addr, error) {
	spec, err := s.AddressList().Parse()
	claims, errs := s.ParsePreAllocations(key.Namespace)
	if err != nil || len(errs) > 0 {
		texts := make([]string, 0, 1+len(errs))
		if err != nil {
			texts = append(texts, err.Error())
		}
		for _, e := range errs {
			texts = append(texts, e.Error())
		}
		return ipam.Spec{}, nil, errors.New(strings.Join(texts, "; "))
	}
	pre := make(map[string]netip.Addr, len(claims))
	for c, a := range claims {
		pre[c.String()] = a
	}
	return spec, pre, nil
}

// applyLocked steps e's machine with ev and carries out its decisions
// (cacheready.Driver), feeding the outcome of a build back into the
// machine. obj is updated in place with every write.
func (r *poolReconciler) applyLocked(ctx context.Context, e *poolEntry, key poolKey, obj v1alpha1.Pool, ev cacheready.Event) error {
	d := cacheready.Driver[*poolEntry]{
		Publish: func(c conditions.Condition, epoch string, built *poolEntry, fresh bool) error {
			upd := obj.DeepCopyObject().(v1alpha1.Pool)
			st := upd.PoolStatus()
			st.Conditions, _ = kube.SetMeta(st.Conditions, c, r.now())
			st.CacheEpoch = epoch
			if fresh {
				// built is the build's own entry, which no other
				// goroutine sees yet: its mu needs no taking.
				writeCountsLocked(st, built, obj.GetGeneration(), r.now())
			}
			if err := r.client.Status().Update(ctx, upd); err != nil {
				return err
			}
			setPool(obj, upd)
			return nil
		},
		Build: func(int64) (*poolEntry, error) { return r.build(ctx, key, obj) },
		Adopt: func(built *poolEntry) {
			// Creates in flight keep their addresses in the new pool.
			for owner, a := range e.pending {
				built.pending[owner] = a
				_ = built.takeLocked(owner, a)
			}
			e.ipamPool, e.spec, e.gen, e.objects, e.pending = built.ipamPool, built.spec, built.gen, built.objects, built.pending
			e.pre, e.preOf, e.source = built.pre, built.preOf, built.source
			e.outOfRange, e.resynced = built.outOfRange, r.now()
		},
		Drop: e.dropLocked,
	}
	var err error
	e.machine, err = d.Run(e.machine, ev)
	return err
}

// build restores the pool from the informer cache of its IPAddresses and
// holds the pre-allocated addresses nothing holds for their claims. Its
// problems (an address the spec does not hold, or held twice) become
// Events and the AddressesValid condition, written with the counts; an
// invalid spec fails it, and CacheReady says why.
func (r *poolReconciler) build(ctx context.Context, key poolKey, obj v1alpha1.Pool) (*poolEntry, error) {
	spec, pre, err := parsePool(key, obj.PoolSpec())
	if err != nil {
		return nil, err
	}
	var list ipamv1.IPAddressList
	if err := r.client.List(ctx, &list, client.InNamespace(key.Namespace), client.MatchingFields{addressPoolIndex: indexValue(key.Kind, key.Name)}); err != nil {
		return nil, fmt.Errorf("list IPAddresses: %w", err)
	}
	built, msgs, err := restoreEntry(spec, list.Items)
	if err != nil {
		return nil, err
	}
	built.setPreAllocationsLocked(pre, *obj.PoolSpec().DeepCopy()) // built is this goroutine's alone
	// Each IPAddress the pool does not hold is an Event (the first ones);
	// AddressesValid counts them (writeCounts).
	for i, m := range msgs {
		if i == maxProblemEvents {
			break
		}
		r.recorder.Event(obj, corev1.EventTypeWarning, ReasonAddressesInvalid, m)
	}
	built.gen = obj.GetGeneration()
	return built, nil
}

// setPool copies src into dst (both of one kind).
func setPool(dst, src v1alpha1.Pool) {
	switch d := dst.(type) {
	case *v1alpha1.VMNetIPPool:
		*d = *src.(*v1alpha1.VMNetIPPool)
	case *v1alpha1.GlobalVMNetIPPool:
		*d = *src.(*v1alpha1.GlobalVMNetIPPool)
	}
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}
