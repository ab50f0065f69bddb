package controller

import (
	"strings"

	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// networkKey returns the "namespace/name" of a network named name from
// namespace ns: a qualified name as it is, an unqualified one in ns. It is
// how KubeVirt reads a Multus networkName (ns: the VM's namespace) and how
// the operator reads an IPPool's spec.network (ns: the pool's namespace).
func networkKey(ns, name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	return ns + "/" + name
}

// poolNetworkKey is networkKey of p's spec.network in p's namespace.
func poolNetworkKey(p *v1alpha1.IPPool) string { return networkKey(p.Namespace, p.Spec.Network) }

// poolsByNetwork groups pools by poolNetworkKey, leaving out pools being
// deleted. More than one pool under one key is a conflict.
func poolsByNetwork(pools []v1alpha1.IPPool) map[string][]*v1alpha1.IPPool {
	m := map[string][]*v1alpha1.IPPool{}
	for i := range pools {
		p := &pools[i]
		if !p.DeletionTimestamp.IsZero() {
			continue
		}
		k := poolNetworkKey(p)
		m[k] = append(m[k], p)
	}
	return m
}

// cutNamespace splits a networkKey into its namespace and name.
func cutNamespace(key string) (ns, name string, ok bool) { return strings.Cut(key, "/") }
