package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestRestartKeepsBoundClaims protects claims that already hold an address
// across a restart of the provider and across a second manager started
// beside the first: a claim whose IPAddress exists keeps its addressRef and
// Ready=True whatever the state of the process's copy of the pool, so no
// status write touches it (the API server bumps a claim's resourceVersion
// on every write, so an unchanged resourceVersion means no write at all).
// Only a claim that needs an address waits for the rebuild: a new claim is
// served once the pools are ready again.
func TestRestartKeepsBoundClaims(t *testing.T) {
	const n = 2000
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ns := kubetest.CreateNamespace(t, c, "bound")
	s := newClaimSet(t, c, ns, n)
	first := startManager(t, cfg, ns, "epoch-bound-1", nil)
	s.createAll(t, c, 0, n)
	s.waitSettled(t, c, 10*time.Minute)
	before := versions(t, c, ns)

	// served waits until both pools publish CacheReady True for epoch, and a
	// new claim (which needs an address) is bound.
	served := func(epoch, claim string) {
		t.Helper()
		kubetest.Eventually(t, 2*time.Minute, "pools ready for "+epoch, func() (bool, string) {
			for _, p := range []v1alpha1.Pool{&v1alpha1.VMNetIPPool{ObjectMeta: metaOf(ns, "v4")}, &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: s.globalPool}}} {
				get(t, c, p)
				st := p.PoolStatus()
				if st.CacheEpoch != epoch || !hasCondition(st.Conditions, "CacheReady", metav1.ConditionTrue) {
					return false, fmt.Sprintf("%s: %s", p.GetName(), statusText(*st))
				}
			}
			return true, ""
		})
		create(t, c, newClaim(ns, claim, poolRef(v1alpha1.PoolKind, "v4")))
		waitAddress(t, c, ns, claim)
	}
	touched := func(stage string) {
		t.Helper()
		after := versions(t, c, ns)
		var changed []string
		for name, rv := range before {
			if after[name] != rv {
				changed = append(changed, name)
			}
		}
		if len(changed) != 0 {
			t.Errorf("%s: %d of %d bound claims had their status written (first: %v)", stage, len(changed), len(before), changed[:min(5, len(changed))])
		}
	}

	first.stop()
	startManager(t, cfg, ns, "epoch-bound-2", nil)
	served("epoch-bound-2", "new-after-restart")
	touched("restart")

	// A second manager beside the running one: it rebuilds its own copy
	// while the first keeps serving.
	third := startManager(t, cfg, ns, "epoch-bound-3", nil)
	kubetest.Eventually(t, 2*time.Minute, "the second manager's pools", func() (bool, string) {
		p := &v1alpha1.VMNetIPPool{ObjectMeta: metaOf(ns, "v4")}
		get(t, c, p)
		return p.Status.CacheEpoch == "epoch-bound-3", statusText(p.Status)
	})
	create(t, c, newClaim(ns, "new-beside", poolRef(v1alpha1.PoolKind, "v4")))
	waitAddress(t, c, ns, "new-beside")
	third.stop()
	touched("second manager")
}

// versions returns the resourceVersion of every claim in ns by name.
func versions(t testing.TB, c client.Client, ns string) map[string]string {
	t.Helper()
	var list ipamv1.IPAddressClaimList
	if err := c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(list.Items))
	for _, cl := range list.Items {
		out[cl.Name] = cl.ResourceVersion
	}
	return out
}
