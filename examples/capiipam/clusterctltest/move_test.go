package clusterctltest

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	clusterctl "sigs.k8s.io/cluster-api/cmd/clusterctl/client"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// boundClaims is how many claims that take any address are bound on the
// source before a move (besides 3 that ask for theirs).
const boundClaims = 200

// TestClusterctlMove moves a management cluster's namespace with
// clusterctl's own mover (client.Move: Clusters paused on the source,
// objects created on the target in its order, the source's deleted, the
// target's Clusters unpaused) from one API server to another, both made by
// clusterctl init: 2 provisioned Clusters, 203 claims bound by capiipam on
// the source in a namespaced and a global pool, and 2 claims made after
// the source's capiipam stopped, still pending; among them, claims with an
// address pre-allocated (spec.preAllocations) or asked for (annotation),
// bound and pending. On the target, every IPAddress has the address it
// had on the source, every claim is bound to it, no address is held
// twice, every address's lock names its IPAddress, the pending claims are
// served (the pre-allocated one with its address), and capiipam made no
// write for a claim whose Cluster was paused (so the pending claims are
// served only after the unpause). capiipam runs on the target from before
// the move, or starts only after it.
func TestClusterctlMove(t *testing.T) {
	tests := []struct {
		name        string
		startBefore bool // capiipam runs on the target during the move
	}{
		{name: "provider on the target from the start", startBefore: true},
		{name: "provider started on the target after the move", startBefore: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { testMove(t, tt.startBefore) })
	}
}

// placed is where a claim's IPAddress is: its pool and address.
type placed struct {
	Pool    string // kind/name
	Address string
}

func testMove(t *testing.T, startBefore bool) {
	ctx := context.Background()
	repo := newRepository(t)
	src, dst := newManagementCluster(t, repo), newManagementCluster(t, repo)

	// The source: pools, Clusters, and claims bound by its capiipam.
	ns := kubetest.CreateNamespace(t, src.c, "fleet")
	createEventually(t, src.c, &v1alpha1.VMNetIPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nodes"},
		Spec: v1alpha1.PoolSpec{Addresses: []string{"10.10.0.0/24"}, Prefix: 24, Gateway: "10.10.0.1",
			PreAllocations: map[string]v1alpha1.PreAllocatedAddress{"m-pre": "10.10.0.200", "m-pre-pending": "10.10.0.201"}}})
	createEventually(t, src.c, &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: ns + "-shared"},
		Spec: v1alpha1.PoolSpec{Addresses: []string{"10.20.0.0/24"}, Prefix: 24, Gateway: "10.20.0.1",
			PreAllocations: map[string]v1alpha1.PreAllocatedAddress{ns + "/m-pre-g": "10.20.0.200"}}})
	clusters := []*clusterv1.Cluster{createProvisionedCluster(t, src.c, ns, "alpha"), createProvisionedCluster(t, src.c, ns, "beta")}
	_, stopSource := startProvider(t, src)
	claims := make([]*ipamv1.IPAddressClaim, boundClaims)
	for i := range claims {
		kind, pool := v1alpha1.PoolKind, "nodes"
		if i%4 >= 2 {
			kind, pool = v1alpha1.GlobalPoolKind, ns+"-shared"
		}
		claims[i] = newClaim(clusters[i%2], fmt.Sprintf("m-%03d", i), kind, pool)
	}
	// Claims that ask for their addresses, and what they must hold on the
	// target: pre-allocated ones and an annotated one.
	asked := map[string]placed{
		"m-pre": {"VMNetIPPool/nodes", "10.10.0.200"}, "m-pre-g": {"GlobalVMNetIPPool/" + ns + "-shared", "10.20.0.200"},
		"m-asked": {"VMNetIPPool/nodes", "10.10.0.150"}, "m-pre-pending": {"VMNetIPPool/nodes", "10.10.0.201"},
	}
	annotated := newClaim(clusters[1], "m-asked", v1alpha1.PoolKind, "nodes")
	annotated.Annotations = map[string]string{v1alpha1.AddressAnnotation: "10.10.0.150"}
	claims = append(claims, newClaim(clusters[0], "m-pre", v1alpha1.PoolKind, "nodes"),
		newClaim(clusters[1], "m-pre-g", v1alpha1.GlobalPoolKind, ns+"-shared"), annotated)
	if err := kubetest.InParallel(len(claims), 8, func(i int) error { return src.c.Create(ctx, claims[i]) }); err != nil {
		t.Fatal(err)
	}
	waitBound(t, src.c, ns, len(claims))
	stopSource()
	pending := newClaim(clusters[0], "m-pending", v1alpha1.PoolKind, "nodes")
	createEventually(t, src.c, pending)
	createEventually(t, src.c, newClaim(clusters[1], "m-pre-pending", v1alpha1.PoolKind, "nodes"))
	before := addresses(t, src.c, ns)
	if len(before) != len(claims) {
		t.Fatalf("%d IPAddresses on the source, want %d", len(before), len(claims))
	}

	var w *writes
	if startBefore {
		w, _ = startProvider(t, dst)
	}
	start := time.Now()
	err := newClusterctl(t, repo).Move(ctx, clusterctl.MoveOptions{
		FromKubeconfig: clusterctl.Kubeconfig{Path: src.kubeconfig},
		ToKubeconfig:   clusterctl.Kubeconfig{Path: dst.kubeconfig},
		Namespace:      ns,
	})
	if err != nil {
		t.Fatalf("clusterctl move: %v", err)
	}
	moved := time.Since(start)
	if !startBefore {
		w, _ = startProvider(t, dst)
	}

	// The target: every claim bound, the pending ones too, the asked-for
	// addresses the claims'.
	waitBound(t, dst.c, ns, len(claims)+2)
	after := addresses(t, dst.c, ns)
	changed := 0
	for name, was := range before {
		if now := after[name]; now != was {
			changed++
			t.Errorf("IPAddress %s: %+v on the source, %+v on the target", name, was, now)
		}
	}
	holders := map[placed][]string{}
	for name, p := range after {
		holders[p] = append(holders[p], name)
	}
	duplicates := 0
	for p, names := range holders {
		if len(names) > 1 {
			duplicates += len(names) - 1
			sort.Strings(names)
			t.Errorf("%s %s held by %d IPAddresses: %v", p.Pool, p.Address, len(names), names)
		}
	}
	if _, ok := after[pending.Name]; !ok {
		t.Errorf("the pending claim has no IPAddress on the target")
	}
	for name, want := range asked {
		if got := after[name]; got != want {
			t.Errorf("IPAddress %s on the target: %+v, want %+v (asked for)", name, got, want)
		}
	}
	checkLocks(t, dst.c, ns, after)
	all, paused := w.counts()
	for _, p := range paused {
		t.Errorf("a write for a claim of a paused Cluster: %s", p)
	}
	for _, cl := range clusters {
		got := &clusterv1.Cluster{}
		if err := dst.c.Get(ctx, client.ObjectKeyFromObject(cl), got); err != nil || got.Spec.Paused != nil && *got.Spec.Paused {
			t.Errorf("Cluster %s on the target: %v, paused %v", cl.Name, err, got.Spec.Paused)
		}
	}
	checkSourceEmptied(t, src.c, ns)
	t.Logf("clusterctl move of 2 Clusters, %d claims, %d IPAddresses in %v; addresses compared %d, changed %d, duplicates %d; capiipam's writes for claims on the target %d, for claims of paused Clusters %d",
		len(claims)+2, len(claims), moved.Round(100*time.Millisecond), len(before), changed, duplicates, all, len(paused))
}

// waitBound waits until n claims of ns are bound (addressRef, Ready).
func waitBound(t testing.TB, c client.Client, ns string, n int) {
	t.Helper()
	kubetest.Eventually(t, 120*time.Second, fmt.Sprintf("%d claims bound", n), func() (bool, string) {
		var list ipamv1.IPAddressClaimList
		if err := c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		bound := 0
		for i := range list.Items {
			if ready(&list.Items[i]) && list.Items[i].Status.AddressRef.Name == list.Items[i].Name {
				bound++
			}
		}
		return bound == n && len(list.Items) == n, fmt.Sprintf("%d of %d claims bound", bound, len(list.Items))
	})
}

// addresses returns the IPAddresses of ns by name.
func addresses(t testing.TB, c client.Client, ns string) map[string]placed {
	t.Helper()
	var list ipamv1.IPAddressList
	if err := c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	out := map[string]placed{}
	for _, ip := range list.Items {
		out[ip.Name] = placed{Pool: ip.Spec.PoolRef.Kind + "/" + ip.Spec.PoolRef.Name, Address: ip.Spec.Address}
	}
	return out
}

// checkLocks checks that each IPAddress's address has its lock on the
// target, naming that IPAddress: moved with the address, or taken for
// the pending claim.
func checkLocks(t testing.TB, c client.Client, ns string, ips map[string]placed) {
	t.Helper()
	var list v1alpha1.VMNetIPAddressLockList
	if err := c.List(context.Background(), &list); err != nil {
		t.Fatal(err)
	}
	holder := map[placed]string{}
	for _, l := range list.Items {
		holder[placed{Pool: l.Spec.PoolKind + "/" + l.Spec.PoolName, Address: l.Spec.Address}] = l.Spec.HolderNamespace + "/" + l.Spec.HolderName
	}
	var missing []string
	for name, p := range ips {
		if got := holder[p]; got != ns+"/"+name {
			missing = append(missing, fmt.Sprintf("%s %s: lock held by %q", name, p.Address, got))
		}
	}
	sort.Strings(missing)
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("IPAddresses without their lock on the target (-want +got):\n%s", diff)
	}
}

// checkSourceEmptied checks what clusterctl move leaves on the source: no
// claim, IPAddress or namespaced pool of the moved namespace. Cluster-scoped
// objects (the global pool, the locks) stay there, as clusterctl leaves
// every global object.
func checkSourceEmptied(t testing.TB, c client.Client, ns string) {
	t.Helper()
	ctx := context.Background()
	for _, list := range []client.ObjectList{&ipamv1.IPAddressClaimList{}, &ipamv1.IPAddressList{}, &v1alpha1.VMNetIPPoolList{}} {
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if n := apimeta.LenList(list); n > 0 {
			t.Errorf("%d %T left on the source", n, list)
		}
	}
}
