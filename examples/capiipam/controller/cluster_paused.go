package controller

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
)

// clusterPaused reports whether the claim's Cluster is paused. A claim
// whose Cluster cannot be found is treated as paused unless it is being
// deleted, as the in-cluster provider does: its paused state is unknown.
func (r *claimReconciler) clusterPaused(ctx context.Context, claim *ipamv1.IPAddressClaim) (bool, error) {
	name := clusterName(claim)
	if name == "" {
		return false, nil
	}
	cluster := &clusterv1.Cluster{}
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: claim.Namespace, Name: name}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return claim.DeletionTimestamp.IsZero(), nil
		}
		return false, err
	}
	return clusterPaused(cluster), nil
}

// clusterName returns the name of the claim's Cluster, or "".
func clusterName(claim *ipamv1.IPAddressClaim) string {
	if claim.Spec.ClusterName != "" {
		return claim.Spec.ClusterName
	}
	return claim.Labels[ClusterNameLabel]
}

// clusterPaused reports whether c is paused, by spec or annotation.
func clusterPaused(c *clusterv1.Cluster) bool {
	return (c.Spec.Paused != nil && *c.Spec.Paused) || hasKey(c.Annotations, PausedAnnotation)
}
