package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// TestNotBoundAtStart: of the claims a start lists, only the bound ones
// (an addressRef, not being deleted) are left out; a claim created later,
// bound or not, and every other listed claim are reconciled.
func TestNotBoundAtStart(t *testing.T) {
	now := metav1.Now()
	claim := func(addressRef string, deleting bool) *ipamv1.IPAddressClaim {
		c := &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
		c.Status.AddressRef.Name = addressRef
		if deleting {
			c.DeletionTimestamp, c.Finalizers = &now, []string{"x"}
		}
		return c
	}
	tests := []struct {
		name    string
		claim   *ipamv1.IPAddressClaim
		initial bool
		want    bool
	}{
		{"listed at start, bound", claim("c", false), true, false},
		{"listed at start, needs an address", claim("", false), true, true},
		{"listed at start, bound and being deleted", claim("c", true), true, true},
		{"created later, bound", claim("c", false), false, true},
		{"created later, needs an address", claim("", false), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := notBoundAtStart.Create(event.CreateEvent{Object: tt.claim, IsInInitialList: tt.initial}); got != tt.want {
				t.Errorf("notBoundAtStart.Create = %v, want %v", got, tt.want)
			}
		})
	}
}
