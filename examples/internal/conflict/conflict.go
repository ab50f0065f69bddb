// Package conflict holds the one rule by which the adapters' reconcilers
// treat the error of a write made from what their informer cache delivered.
package conflict

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Requeue turns the error of a write into what Reconcile returns: a
// Conflict (the object changed since the cache delivered it) is a quiet
// requeue, and the next reconcile reads the new object; NotFound (the object
// went away meanwhile, as when a reconcile from a stale cache races the one
// that removed the last finalizer) ends the reconcile; any other error is
// returned, for controller-runtime's back-off. nil gives the zero Result.
func Requeue(err error) (reconcile.Result, error) {
	switch {
	case apierrors.IsConflict(err):
		return reconcile.Result{Requeue: true}, nil
	case apierrors.IsNotFound(err):
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, err
}
