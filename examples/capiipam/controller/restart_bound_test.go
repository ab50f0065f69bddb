package controller_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
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
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "bound")
	s := capiipamtest.NewClaimSet(t, c, ns, n)
	first := capiipamtest.StartManager(t, cfg, ns, "epoch-bound-1", nil)
	s.CreateAll(t, c, 0, n)
	s.WaitSettled(t, c, 10*time.Minute)
	before := capiipamtest.Versions(t, c, ns)

	// served waits until both pools publish CacheReady True for epoch, and a
	// new claim (which needs an address) is bound.
	served := func(epoch, claim string) {
		t.Helper()
		kubetest.Eventually(t, 2*time.Minute, "pools ready for "+epoch, func() (bool, string) {
			for _, p := range []v1alpha1.Pool{&v1alpha1.VMNetIPPool{ObjectMeta: capiipamtest.MetaOf(ns, "v4")}, &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: s.GlobalPool}}} {
				capiipamtest.Get(t, c, p)
				st := p.PoolStatus()
				if st.CacheEpoch != epoch || !capiipamtest.HasCondition(st.Conditions, "CacheReady", metav1.ConditionTrue) {
					return false, fmt.Sprintf("%s: %s", p.GetName(), capiipamtest.StatusText(*st))
				}
			}
			return true, ""
		})
		capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, claim, capiipamtest.PoolRef(v1alpha1.PoolKind, "v4")))
		capiipamtest.WaitAddress(t, c, ns, claim)
	}
	touched := func(stage string) {
		t.Helper()
		after := capiipamtest.Versions(t, c, ns)
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

	first.Stop()
	capiipamtest.StartManager(t, cfg, ns, "epoch-bound-2", nil)
	served("epoch-bound-2", "new-after-restart")
	touched("restart")

	// A second manager beside the running one: it rebuilds its own copy
	// while the first keeps serving.
	third := capiipamtest.StartManager(t, cfg, ns, "epoch-bound-3", nil)
	kubetest.Eventually(t, 2*time.Minute, "the second manager's pools", func() (bool, string) {
		p := &v1alpha1.VMNetIPPool{ObjectMeta: capiipamtest.MetaOf(ns, "v4")}
		capiipamtest.Get(t, c, p)
		return p.Status.CacheEpoch == "epoch-bound-3", capiipamtest.StatusText(p.Status)
	})
	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "new-beside", capiipamtest.PoolRef(v1alpha1.PoolKind, "v4")))
	capiipamtest.WaitAddress(t, c, ns, "new-beside")
	third.Stop()
	touched("second manager")
}
