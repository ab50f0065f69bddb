package clusterctltest

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// createProvisionedCluster creates a Cluster and writes the status that
// Cluster API's controllers write once it is provisioned, which clusterctl
// move requires of every Cluster it moves.
func createProvisionedCluster(t testing.TB, c client.Client, ns, name string) *clusterv1.Cluster {
	t.Helper()
	ctx := context.Background()
	cl := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: clusterv1.ClusterSpec{
		ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: name + ".example.com", Port: 6443},
	}}
	createEventually(t, c, cl)
	cl.Status.Initialization = clusterv1.ClusterInitializationStatus{InfrastructureProvisioned: ptr.To(true), ControlPlaneInitialized: ptr.To(true)}
	cl.Status.Conditions = []metav1.Condition{{
		Type: clusterv1.ClusterControlPlaneInitializedCondition, Status: metav1.ConditionTrue,
		Reason: clusterv1.ClusterControlPlaneInitializedReason, LastTransitionTime: metav1.Now(),
	}}
	if err := c.Status().Update(ctx, cl); err != nil {
		t.Fatalf("Cluster %s status: %v", name, err)
	}
	return cl
}

// newClaim returns the claim name of cluster for the pool kind/pool,
// owned by cluster: clusterctl move moves what a Cluster owns, directly or
// through an infrastructure Machine's chain.
func newClaim(cluster *clusterv1.Cluster, name, kind, pool string) *ipamv1.IPAddressClaim {
	return &ipamv1.IPAddressClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster.Namespace, Name: name, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: cluster.Name, UID: cluster.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}}},
		Spec: ipamv1.IPAddressClaimSpec{
			ClusterName: cluster.Name,
			PoolRef:     ipamv1.IPPoolReference{APIGroup: v1alpha1.GroupVersion.Group, Kind: kind, Name: pool},
		},
	}
}

// createEventually creates obj, retrying while the API server does not
// serve its kind yet (clusterctl init returns before its CRDs are
// established).
func createEventually(t testing.TB, c client.Client, obj client.Object) {
	t.Helper()
	kubetest.Eventually(t, 30*time.Second, "the API server serves "+obj.GetObjectKind().GroupVersionKind().Kind, func() (bool, string) {
		err := c.Create(context.Background(), obj)
		switch {
		case meta.IsNoMatchError(err) || apierrors.IsNotFound(err):
			return false, err.Error()
		case err != nil:
			t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
		}
		return true, ""
	})
}

// ready reports whether claim is bound: addressRef set, Ready=True.
func ready(claim *ipamv1.IPAddressClaim) bool {
	if claim.Status.AddressRef.Name == "" {
		return false
	}
	for _, c := range claim.Status.Conditions {
		if c.Type == ipamv1.IPAddressClaimReadyCondition {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}
