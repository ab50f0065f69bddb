package controller_test

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/controller"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestStalledCreator is package reclaim's handshake on the API server,
// with the creator the model stalls: two processes share a global pool of
// one address (each watches its own namespace). Process A locks the
// address for claim s and stalls before creating s's IPAddress; process
// B, whose claim t finds the lock without its holder, reclaims it after
// reclaim.OrphanAge by its own clock and binds t to the address. When A
// resumes, its create has been slow: it confirms its lock, finds it t's,
// deletes s's IPAddress and leaves s waiting. Never two IPAddresses
// bound, and the lock ends t's. Both clocks run 10 times as fast.
func TestStalledCreator(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	nsA := kubetest.CreateNamespace(t, c, "stalled")
	nsB := kubetest.CreateNamespace(t, c, "reclaimer")
	x := netip.MustParseAddr("10.7.0.5")
	pool := &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: nsA}, Spec: v1alpha1.PoolSpec{Addresses: []string{x.String()}, Prefix: 24}}
	capiipamtest.Create(t, c, pool)
	ref := capiipamtest.PoolRef(v1alpha1.GlobalPoolKind, pool.Name)

	stalled, release := make(chan struct{}), make(chan struct{})
	var stall, resume sync.Once
	t.Cleanup(func() { resume.Do(func() { close(release) }) }) // before the managers stop
	capiipamtest.StartManagerSince(t, cfg, nsA, "epoch-a", time.Now, capiipamtest.Faster(10), 4, func(obj client.Object, err error) {
		if l, ok := obj.(*v1alpha1.VMNetIPAddressLock); ok && err == nil && l.Spec.HolderName == "s" {
			stall.Do(func() { close(stalled); <-release })
		}
	})
	capiipamtest.Create(t, c, capiipamtest.NewClaim(nsA, "s", ref))
	select {
	case <-stalled:
	case <-time.After(30 * time.Second):
		t.Fatal("process A never locked the address for s")
	}

	capiipamtest.StartManagerSince(t, cfg, nsB, "epoch-b", time.Now, capiipamtest.Faster(10), 4, nil)
	capiipamtest.Create(t, c, capiipamtest.NewClaim(nsB, "t", ref))
	if got := capiipamtest.WaitAddress(t, c, nsB, "t").Spec.Address; got != x.String() {
		t.Fatalf("t got %s, want %s, reclaimed from the stalled s", got, x)
	}
	resume.Do(func() { close(release) })

	capiipamtest.WaitReason(t, c, nsA, "s", controller.ReasonPoolExhausted)
	kubetest.Eventually(t, 30*time.Second, "s's IPAddress deleted", func() (bool, string) {
		err := c.Get(context.Background(), types.NamespacedName{Namespace: nsA, Name: "s"}, &ipamv1.IPAddress{})
		return apierrors.IsNotFound(err), fmt.Sprintf("get: %v", err)
	})
	capiipamtest.Never(t, 3*time.Second, "s bound", func() (bool, string) {
		claim := &ipamv1.IPAddressClaim{ObjectMeta: metav1.ObjectMeta{Namespace: nsA, Name: "s"}}
		capiipamtest.Get(t, c, claim)
		return claim.Status.AddressRef.Name != "", fmt.Sprintf("s bound to %s", claim.Status.AddressRef.Name)
	})
	l := controller.NewLock(v1alpha1.GlobalPoolKind, "", pool.Name, x, types.NamespacedName{})
	if !capiipamtest.Get(t, c, l) || l.Spec.HolderNamespace != nsB || l.Spec.HolderName != "t" {
		t.Errorf("the lock of %s is %+v, want t's", x, l.Spec)
	}
	if got := capiipamtest.WaitAddress(t, c, nsB, "t").Spec.Address; got != x.String() {
		t.Errorf("t holds %s after, want %s", got, x)
	}
}
