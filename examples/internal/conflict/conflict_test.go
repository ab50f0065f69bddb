package conflict

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestRequeue(t *testing.T) {
	gr := schema.GroupResource{Group: "network.vmnetkit.dev", Resource: "ippools"}
	other := errors.New("etcdserver: request timed out")
	tests := []struct {
		name    string
		err     error
		want    reconcile.Result
		wantErr error
	}{
		{"nil", nil, reconcile.Result{}, nil},
		{"conflict requeues quietly", apierrors.NewConflict(gr, "net", errors.New("the object has been modified")), reconcile.Result{Requeue: true}, nil},
		{"wrapped conflict too", fmt.Errorf("write status: %w", apierrors.NewConflict(gr, "net", errors.New("modified"))), reconcile.Result{Requeue: true}, nil},
		{"not found ends the reconcile", apierrors.NewNotFound(gr, "net"), reconcile.Result{}, nil},
		{"anything else is returned", other, reconcile.Result{}, other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Requeue(tt.err)
			if got != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("Requeue(%v) = %+v, %v; want %+v, %v", tt.err, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
