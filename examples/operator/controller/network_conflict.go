package controller

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/kube"
)

// NetworkConflictType is the type of an IPPool's condition that is True
// while another IPPool (of any namespace) names the same network
// (spec.network read by networkKey). Neither pool then serves a new NIC on
// it; the NICs served before keep their addresses.
const NetworkConflictType = "NetworkConflict"

// Reasons of the NetworkConflict condition.
const (
	ReasonDuplicateNetwork = "DuplicateNetwork"
	ReasonUniqueNetwork    = "UniqueNetwork"
)

// networkConflictReconciler keeps each IPPool's NetworkConflict condition.
// It writes the pool's status with the resourceVersion it read, as every
// writer of a pool's status does, so it never overwrites an allocation.
type networkConflictReconciler struct {
	client client.Client
	now    func() time.Time
}

func (r *networkConflictReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pool := &v1alpha1.IPPool{}
	if err := r.client.Get(ctx, req.NamespacedName, pool); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !pool.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	var pools v1alpha1.IPPoolList
	if err := r.client.List(ctx, &pools); err != nil {
		return reconcile.Result{}, err
	}
	c := networkConflict(pool, poolsByNetwork(pools.Items)[poolNetworkKey(pool)])
	conds, changed := kube.SetMeta(pool.Status.Conditions, c, r.now())
	if !changed {
		return reconcile.Result{}, nil
	}
	pool.Status.Conditions = conds
	if err := r.client.Status().Update(ctx, pool); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return reconcile.Result{Requeue: true}, nil
		}
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

// networkConflict is pool's NetworkConflict condition, given the pools
// that name its network (itself included).
func networkConflict(pool *v1alpha1.IPPool, same []*v1alpha1.IPPool) conditions.Condition {
	key := poolNetworkKey(pool)
	c := conditions.Condition{Type: NetworkConflictType, ObservedGeneration: pool.Generation}
	var others []*v1alpha1.IPPool
	for _, p := range same {
		if p.UID != pool.UID {
			others = append(others, p)
		}
	}
	if len(others) == 0 {
		c.Status, c.Reason, c.Message = conditions.ConditionFalse, ReasonUniqueNetwork, fmt.Sprintf("the only IPPool of network %s", key)
		return c
	}
	c.Status, c.Reason = conditions.ConditionTrue, ReasonDuplicateNetwork
	c.Message = fmt.Sprintf("network %s is also claimed by %s: no new NIC is served on it until one pool remains", key, poolNames(others))
	return c
}

// poolsToRecheck maps an IPPool to every pool whose NetworkConflict may
// change with it: those naming the same network, and those in conflict now
// (the pool may have left their network).
func poolsToRecheck(c client.Client) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		p, ok := obj.(*v1alpha1.IPPool)
		if !ok {
			return nil
		}
		var pools v1alpha1.IPPoolList
		if err := c.List(ctx, &pools); err != nil {
			return nil
		}
		var reqs []reconcile.Request
		for i := range pools.Items {
			q := &pools.Items[i]
			if q.UID == p.UID {
				continue
			}
			cond, _ := kube.FindMeta(q.Status.Conditions, NetworkConflictType)
			if poolNetworkKey(q) == poolNetworkKey(p) || cond.Status == conditions.ConditionTrue {
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(q)})
			}
		}
		return reqs
	}
}
