package controller

import (
	"context"
	"fmt"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
)

// poolReconciler feeds each IPPool to its cacheready.Machine and carries out the
// machine's decisions in the order it gives them: write the published
// condition (and the epoch beside it), then drop or build the in-memory pool.
// A decision is committed to the machine only after its write succeeded, so a
// failed write is retried from the same state at the next reconcile.
type poolReconciler struct {
	client client.Client // writes
	reader client.Reader // uncached reads: status writes need the latest resourceVersion
	cache  *poolCache
	now    func() time.Time
	limit  int // -max-allocations-per-pool
	events record.EventRecorder
}

func (r *poolReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj := &v1alpha1.IPPool{}
	if err := r.reader.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			if e := r.cache.Remove(req.NamespacedName); e != nil {
				e.step(cacheready.Deleted{})
			}
			forget(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	e := r.cache.Entry(req.NamespacedName, obj.UID)
	if err := r.syncEntry(ctx, req.NamespacedName, e, obj); err != nil {
		if apierrors.IsConflict(err) {
			// Someone wrote the pool since we read it; observe it again.
			return reconcile.Result{Requeue: true}, nil
		}
		if isTooLarge(err) {
			// The status is at etcd's edge: even a condition does not fit,
			// and the same write would fail at every retry. Say so once and
			// wait for the next change of the pool.
			r.events.Eventf(obj, corev1.EventTypeWarning, ReasonStatusTooLarge,
				"the API server refuses this pool's status (%d allocations) as too large: %v; "+
					"the pool is not served until its status.allocated is smaller", len(obj.Status.Allocated), err)
			return reconcile.Result{}, reconcile.TerminalError(err)
		}
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

// syncLocked feeds obj, the pool as just read, to e's machine.
func (r *poolReconciler) syncLocked(ctx context.Context, e *poolEntry, obj *v1alpha1.IPPool) error {
	m := e.machine
	if m.State() != cacheready.StateUnobserved && obj.Generation > m.Generation() {
		changed := e.obj == nil || cacheSpecChanged(e.obj.Spec, obj.Spec)
		if err := r.applyLocked(ctx, e, obj, cacheready.GenerationChanged{Generation: obj.Generation, SpecChanged: changed}); err != nil {
			return err
		}
	}
	observed := cacheready.Observed{
		Generation:  obj.Generation,
		Paused:      obj.Spec.Paused,
		Deleting:    !obj.DeletionTimestamp.IsZero(),
		StoredEpoch: obj.Status.CacheEpoch,
	}
	if c, ok := kube.FindMeta(obj.Status.Conditions, cacheready.Type); ok {
		observed.Stored = &c
	}
	if err := r.applyLocked(ctx, e, obj, observed); err != nil {
		return err
	}
	// Keep the cache in step with the status we now know to be the latest
	// (another process may have written allocations since our last write).
	if e.machine.State() == cacheready.StateReady && (e.obj == nil || e.obj.ResourceVersion != obj.ResourceVersion) {
		if err := e.adoptLocked(ctx, obj); err != nil {
			next, _ := e.machine.Step(cacheready.Dropped{})
			e.machine, e.obj, e.pool = next, nil, nil
			return fmt.Errorf("restore pool %s/%s: %w", obj.Namespace, obj.Name, err)
		}
	}
	// CapacityLimited follows the allocations (claims' writes set it), the
	// spec's maxAllocations and the operator's limit, which change without
	// an allocation.
	if e.readyLocked() {
		upd := e.obj.DeepCopy()
		if setCapacity(&upd.Status, e.pool, poolLimit(upd.Spec, r.limit), e.ceiling, upd.Generation, r.now()) {
			if err := r.client.Status().Update(ctx, upd); err != nil {
				return err
			}
			e.obj = upd
		}
	}
	return nil
}

// applyLocked steps e's machine with ev and carries out its decisions
// (cacheready.Driver), feeding the outcome of a build back into the machine.
// obj is updated in place with every write.
func (r *poolReconciler) applyLocked(ctx context.Context, e *poolEntry, obj *v1alpha1.IPPool, ev cacheready.Event) error {
	d := cacheready.Driver[*poolSet]{
		Publish: func(c conditions.Condition, epoch string, built *poolSet, fresh bool) error {
			upd := obj.DeepCopy()
			upd.Status.Conditions, _ = kube.SetMeta(upd.Status.Conditions, c, r.now())
			upd.Status.CacheEpoch = epoch
			if fresh {
				writeSetStats(&upd.Status, built)
				setCapacity(&upd.Status, built, poolLimit(upd.Spec, r.limit), 0, upd.Generation, r.now())
			}
			if err := r.client.Status().Update(ctx, upd); err != nil {
				return err
			}
			*obj = *upd
			return nil
		},
		Build: func(int64) (*poolSet, error) {
			p, problems, err := buildPoolSet(obj)
			if err != nil {
				return nil, err
			}
			if len(problems) > 0 {
				log.FromContext(ctx).Error(fmt.Errorf("%d entries left out, first: %w", len(problems), problems[0]),
					"status.allocated holds entries the pool cannot keep; they are dropped from the status")
			}
			e.problems, e.ceiling = len(problems), 0
			return p, nil
		},
		Adopt: func(p *poolSet) { e.obj, e.pool = obj.DeepCopy(), p },
		Drop:  e.dropLocked,
	}
	var err error
	e.machine, err = d.Run(e.machine, ev)
	return err
}

// adoptLocked makes obj the entry's persisted state and rebuilds the pool
// from it.
func (e *poolEntry) adoptLocked(ctx context.Context, obj *v1alpha1.IPPool) error {
	p, problems, err := buildPoolSet(obj)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		log.FromContext(ctx).Error(fmt.Errorf("%d entries left out, first: %w", len(problems), problems[0]),
			"status.allocated holds entries the pool cannot keep")
	}
	e.obj, e.pool, e.problems = obj.DeepCopy(), p, len(problems)
	return nil
}

// cacheSpecChanged reports whether the part of the spec the in-memory pools
// are built from (IPPoolSpec.SpecText and, for the IPv6 part,
// IPPoolIPv6Spec.SpecText) differs; DHCP options, the network name and
// lease time do not count, and neither does paused (the machine sees it in
// cacheready.Observed). Adding or removing spec.ipv6 counts.
func cacheSpecChanged(a, b v1alpha1.IPPoolSpec) bool {
	return !reflect.DeepEqual(a.SpecText(), b.SpecText()) || a.DualStack() != b.DualStack() ||
		!reflect.DeepEqual(a.IPv6.SpecText(a.Strategy), b.IPv6.SpecText(b.Strategy))
}
