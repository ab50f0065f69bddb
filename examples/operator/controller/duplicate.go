package controller

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// macIndex is the field index of VMNetworkConfigs by "pool/mac" of their NICs
// (spec and status). A pool's status records addresses by MAC only, so two
// claims naming one MAC on one pool would share an address, and deleting one
// would take it from the other. The index lets the reconciler refuse the
// younger claim and keep the address while another claim still holds it.
// It reads the informer cache: two such claims created at the same instant
// may both pass; the check is a guard against mistakes, not a lock.
const macIndex = "spec.nics.poolmac"

func poolMAC(pool, mac string) string { return pool + "/" + mac }

// claimPoolMACs returns the index values of a VMNetworkConfig.
func claimPoolMACs(obj client.Object) []string {
	c, ok := obj.(*v1alpha1.VMNetworkConfig)
	if !ok {
		return nil
	}
	var keys []string
	for _, n := range c.Spec.NICs {
		if mac, _, err := parseNIC(n); err == nil {
			keys = append(keys, poolMAC(n.Pool, mac))
		}
	}
	for _, n := range c.Status.NICs {
		keys = append(keys, poolMAC(n.Pool, n.MAC))
	}
	return keys
}

// otherHolder returns the name of another live claim in c's namespace that
// holds mac on pool (in its status), or that asks for it in its spec and is
// older than c when specToo is set; "" if none.
func (r *claimReconciler) otherHolder(ctx context.Context, c *v1alpha1.VMNetworkConfig, pool, mac string, specToo bool) (string, error) {
	var list v1alpha1.VMNetworkConfigList
	if err := r.client.List(ctx, &list, client.InNamespace(c.Namespace), client.MatchingFields{macIndex: poolMAC(pool, mac)}); err != nil {
		return "", fmt.Errorf("list claims of %s on pool %s: %w", mac, pool, err)
	}
	for i := range list.Items {
		o := &list.Items[i]
		if o.UID == c.UID || !o.DeletionTimestamp.IsZero() {
			continue
		}
		for _, s := range o.Status.NICs {
			if s.Pool == pool && s.MAC == mac {
				return o.Name, nil
			}
		}
		if specToo && older(o, c) {
			return o.Name, nil
		}
	}
	return "", nil
}

// older orders claims by creation time, then name.
func older(a, b *v1alpha1.VMNetworkConfig) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}
