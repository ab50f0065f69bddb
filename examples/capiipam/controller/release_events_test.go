package controller

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
)

// releaseAddress returns an IPAddress of this provider's pool, owned as
// the options say.
func releaseAddress(owners []metav1.OwnerReference, deleting bool) *ipamv1.IPAddress {
	ip := &ipamv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m", OwnerReferences: owners, Finalizers: []string{AddressFinalizer}},
		Spec: ipamv1.IPAddressSpec{
			ClaimRef: ipamv1.IPAddressClaimReference{Name: "m"},
			PoolRef:  ipamv1.IPPoolReference{APIGroup: v1alpha1.GroupVersion.Group, Kind: v1alpha1.PoolKind, Name: "net"},
			Address:  "10.0.0.1",
		},
	}
	if deleting {
		ip.DeletionTimestamp = &metav1.Time{Time: time.Unix(1e9, 0)}
	}
	return ip
}

func claimRef(uid types.UID, controller bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: ipamv1.GroupVersion.String(), Kind: "IPAddressClaim", Name: "m", UID: uid, Controller: ptr.To(controller)}
}

var poolOwner = metav1.OwnerReference{APIVersion: v1alpha1.GroupVersion.String(), Kind: v1alpha1.PoolKind, Name: "net", UID: "pool"}

// TestOwnedBy: an IPAddress is a claim's when its controller owner
// reference is that claim's UID, or when it has no claim controller owner
// (then its name is all there is); another UID is an earlier claim's.
func TestOwnedBy(t *testing.T) {
	claim := &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m", UID: "new"}}
	otherGroup := claimRef("old", true)
	otherGroup.APIVersion = "example.com/v1"
	tests := []struct {
		name   string
		owners []metav1.OwnerReference
		want   bool
	}{
		{"the claim as controller", []metav1.OwnerReference{poolOwner, claimRef("new", true)}, true},
		{"an earlier claim of the name", []metav1.OwnerReference{claimRef("old", true), poolOwner}, false},
		{"no owner", nil, true},
		{"the pool only", []metav1.OwnerReference{poolOwner}, true},
		{"an earlier claim, not controller", []metav1.OwnerReference{claimRef("old", false)}, true},
		{"a kind of that name in another group", []metav1.OwnerReference{otherGroup}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ownedBy(releaseAddress(tt.owners, false), claim); got != tt.want {
				t.Errorf("ownedBy = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestReleaseEvents: the address reconciler hears of an IPAddress when it
// shows (with a claim owner, or being deleted) and when its deletion
// timestamp or owners change; not of its other updates (the release's
// own finalizer removal among them), its deletion, or another provider's
// IPAddresses.
func TestReleaseEvents(t *testing.T) {
	owned := []metav1.OwnerReference{claimRef("u", true), poolOwner}
	other := releaseAddress(owned, false)
	other.Spec.PoolRef.APIGroup = "ipam.cluster.x-k8s.io"
	released := releaseAddress(owned, true)
	released.Finalizers = nil
	relabelled := releaseAddress(owned, false)
	relabelled.Labels = map[string]string{"a": "b"}
	tests := []struct {
		name     string
		old, new *ipamv1.IPAddress // old nil: a create
		want     bool
	}{
		{"create, claim owner", nil, releaseAddress(owned, false), true},
		{"create, being deleted, no owner", nil, releaseAddress(nil, true), true},
		{"create, no claim owner", nil, releaseAddress([]metav1.OwnerReference{poolOwner}, false), false},
		{"create, another provider's", nil, other, false},
		{"deletion timestamp set", releaseAddress(owned, false), releaseAddress(owned, true), true},
		{"owner references removed", releaseAddress(owned, false), releaseAddress(nil, false), true},
		{"finalizer removed while deleting", releaseAddress(owned, true), released, false},
		{"labels changed", releaseAddress(owned, false), relabelled, false},
		{"another provider's deleted", other, func() *ipamv1.IPAddress {
			o := other.DeepCopy()
			o.DeletionTimestamp = &metav1.Time{Time: time.Unix(1e9, 0)}
			return o
		}(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bool
			if tt.old == nil {
				got = releaseEvents{}.Create(event.CreateEvent{Object: tt.new})
			} else {
				got = releaseEvents{}.Update(event.UpdateEvent{ObjectOld: tt.old, ObjectNew: tt.new})
			}
			if got != tt.want {
				t.Errorf("passes = %v, want %v", got, tt.want)
			}
		})
	}
	if (releaseEvents{}).Delete(event.DeleteEvent{Object: releaseAddress(owned, true)}) {
		t.Error("a deletion passes")
	}
}
