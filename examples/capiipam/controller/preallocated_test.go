package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestPreAllocatedNeverGiven: in a full pool, the address pre-allocated
// to a claim that does not exist yet is handed to no other claim, before
// and after a restart of the provider, and is counted neither used nor
// free; the claim gets it when it comes, and again when it is deleted and
// made again.
func TestPreAllocatedNeverGiven(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "preallocated")
	first := capiipamtest.StartManager(t, cfg, ns, "epoch-pre-1", nil)
	pool := capiipamtest.NewPool(ns, "small", v1alpha1.PoolSpec{Addresses: []string{"10.6.0.1-10.6.0.4"}, Prefix: 24,
		PreAllocations: map[string]v1alpha1.PreAllocatedAddress{"web-0": "10.6.0.2"}})
	ref := capiipamtest.PoolRef(v1alpha1.PoolKind, "small")
	capiipamtest.Create(t, c, pool)
	var got []string
	for _, n := range []string{"m-0", "m-1", "m-2"} {
		capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, n, ref))
		got = append(got, capiipamtest.WaitAddress(t, c, ns, n).Spec.Address)
	}
	if want := "10.6.0.1 10.6.0.3 10.6.0.4"; strings.Join(got, " ") != want {
		t.Errorf("the other claims got %v, want %s", got, want)
	}
	capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "m-3", ref))
	waitCounts := func(want v1alpha1.PoolStatusAddresses) {
		t.Helper()
		kubetest.Eventually(t, 15*time.Second, fmt.Sprintf("counts %+v", want), func() (bool, string) {
			capiipamtest.Get(t, c, pool)
			return pool.Status.Addresses != nil && *pool.Status.Addresses == want, capiipamtest.StatusText(pool.Status)
		})
	}
	neverTaken := func(what string) {
		t.Helper()
		capiipamtest.WaitReason(t, c, ns, "m-3", controller.ReasonPoolExhausted)
		capiipamtest.Never(t, 2*time.Second, what, func() (bool, string) {
			ip := &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, "m-3")}
			return capiipamtest.Get(t, c, ip), "m-3 got " + ip.Spec.Address
		})
	}
	neverTaken("the pre-allocated address handed to another claim")
	waitCounts(v1alpha1.PoolStatusAddresses{Total: 4, Used: 3, Free: 0})

	first.Stop()
	capiipamtest.StartManager(t, cfg, ns, "epoch-pre-2", nil)
	kubetest.Eventually(t, 15*time.Second, "the pool rebuilt by the new process", func() (bool, string) {
		capiipamtest.Get(t, c, pool)
		return pool.Status.CacheEpoch == "epoch-pre-2" && capiipamtest.HasCondition(pool.Status.Conditions, "CacheReady", metav1.ConditionTrue),
			capiipamtest.StatusText(pool.Status)
	})
	neverTaken("the pre-allocated address handed to another claim after a restart")

	for round := range 2 { // made, then deleted and made again
		capiipamtest.Create(t, c, capiipamtest.NewClaim(ns, "web-0", ref))
		if got := capiipamtest.WaitAddress(t, c, ns, "web-0").Spec.Address; got != "10.6.0.2" {
			t.Fatalf("round %d: web-0 got %s, want its pre-allocated 10.6.0.2", round, got)
		}
		waitCounts(v1alpha1.PoolStatusAddresses{Total: 4, Used: 4, Free: 0})
		if round == 1 {
			break
		}
		if err := c.Delete(context.Background(), &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, "web-0")}); err != nil {
			t.Fatal(err)
		}
		kubetest.Eventually(t, 15*time.Second, "web-0's IPAddress released", func() (bool, string) {
			return !capiipamtest.Get(t, c, &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, "web-0")}), "still there"
		})
		neverTaken("the released pre-allocated address handed to another claim")
	}
	capiipamtest.CheckUnique(t, c, ns)
}

// TestPreAllocationsInvalid: the API server refuses a pre-allocation
// whose key is no claim's name (namespace/name in a global pool) or whose
// value is no address's text, naming the field; the provider reports
// every other invalid pre-allocation in the pool's CacheReady, naming the
// field, and serves no new claim until they are fixed.
func TestPreAllocationsInvalid(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ns := kubetest.CreateNamespace(t, c, "preinvalid")
	capiipamtest.StartManager(t, cfg, ns, "epoch-preinvalid", nil)
	pre := func(k, v string) map[string]v1alpha1.PreAllocatedAddress {
		return map[string]v1alpha1.PreAllocatedAddress{k: v1alpha1.PreAllocatedAddress(v)}
	}
	global := func(name string, spec v1alpha1.PoolSpec) *v1alpha1.GlobalVMNetIPPool {
		return &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name}, Spec: spec}
	}
	refused := []struct {
		name, want string
		pool       v1alpha1.Pool
	}{
		{"a prefix length", "spec.preAllocations.web-0: Invalid value", capiipamtest.NewPool(ns, "r1", v1alpha1.PoolSpec{Addresses: []string{"10.4.0.0/24"}, Prefix: 24, PreAllocations: pre("web-0", "10.4.0.5/32")})},
		{"a namespace in a VMNetIPPool's key", "spec.preAllocations: Invalid value: \"object\": each key is the name of a claim of the pool's namespace, without the namespace",
			capiipamtest.NewPool(ns, "r2", v1alpha1.PoolSpec{Addresses: []string{"10.4.0.0/24"}, Prefix: 24, PreAllocations: pre("other/web-0", "10.4.0.5")})},
		{"no namespace in a GlobalVMNetIPPool's key", "spec.preAllocations: Invalid value: \"object\": each key is a claim's namespace/name",
			global("r3", v1alpha1.PoolSpec{Addresses: []string{"10.4.1.0/24"}, Prefix: 24, PreAllocations: pre("web-0", "10.4.1.5")})},
	}
	for _, tt := range refused {
		if err := c.Create(context.Background(), tt.pool); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("create with %s: %v, want Invalid with %q", tt.name, err, tt.want)
		}
	}

	tests := []struct {
		name     string
		pool     v1alpha1.Pool
		wantMsgs []string
	}{
		{
			name: v1alpha1.PoolKind,
			pool: capiipamtest.NewPool(ns, "bad", v1alpha1.PoolSpec{Addresses: []string{"10.4.0.0/24"}, Prefix: 24,
				PreAllocations: map[string]v1alpha1.PreAllocatedAddress{"web-0": "10.0.9.1", "web-1": "10.4.0.5", "web-2": "10.4.0.5"}}),
			wantMsgs: []string{
				`spec.preAllocations[web-0]: Invalid value: "10.0.9.1": 10.0.9.1 is not in spec.addresses`,
				`spec.preAllocations[web-2]: Invalid value: "10.4.0.5": 10.4.0.5 is pre-allocated to web-1 too`,
			},
		},
		{
			name:     v1alpha1.GlobalPoolKind,
			pool:     global("bad", v1alpha1.PoolSpec{Addresses: []string{"10.4.1.0/24"}, Prefix: 24, PreAllocations: pre(ns+"/web-0", "10.4.1.0")}),
			wantMsgs: []string{`spec.preAllocations[` + ns + `/web-0]: Invalid value: "10.4.1.0": 10.4.1.0 is the network address of 10.4.1.0/24, handed out only with spec.allocateReservedIPAddresses`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claim := "m-" + strings.ToLower(tt.name)
			capiipamtest.Create(t, c, tt.pool, capiipamtest.NewClaim(ns, claim, capiipamtest.PoolRef(tt.name, tt.pool.GetName())))
			kubetest.Eventually(t, 15*time.Second, "CacheReady False naming each field", func() (bool, string) {
				capiipamtest.Get(t, c, tt.pool)
				for _, cond := range tt.pool.PoolStatus().Conditions {
					if cond.Type != "CacheReady" || cond.Status != metav1.ConditionFalse {
						continue
					}
					for _, m := range tt.wantMsgs {
						if !strings.Contains(cond.Message, m) {
							return false, fmt.Sprintf("message %q lacks %q", cond.Message, m)
						}
					}
					return true, ""
				}
				return false, capiipamtest.StatusText(*tt.pool.PoolStatus())
			})
			cond := capiipamtest.WaitReason(t, c, ns, claim, controller.ReasonPoolNotReady)
			if !strings.Contains(cond.Message, tt.wantMsgs[0]) {
				t.Errorf("claim %s: message %q, want it to name %q", claim, cond.Message, tt.wantMsgs[0])
			}
		})
	}
}
