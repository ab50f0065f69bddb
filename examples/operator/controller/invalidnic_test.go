package controller_test

import (
	"context"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// TestEightByteMACIsInvalidNIC protects claims whose MAC net.ParseMAC takes
// but a pool does not (an 8-byte EUI-64): the operator reads MACs by the
// core's rule (ipam.MACOwners), so the claim fails once as InvalidNIC
// instead of looping as AllocationFailed.
func TestEightByteMACIsInvalidNIC(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ns := kubetest.CreateNamespace(t, c, "invalid-nic")
	createPool(t, c, ns, "net", v1alpha1.IPPoolSpec{Network: "vm-net", CIDR: "10.41.0.0/24"})
	m := startManager(t, cfg, ns, "epoch-invalid-nic", nil)
	waitPoolsReady(t, c, ns, m.epoch, "net")
	if err := c.Create(context.Background(), claimOn(ns, "eui64", "02:00:5e:10:00:00:00:01", "net")); err != nil {
		t.Fatal(err)
	}
	got := waitReady(t, c, ns, "eui64", "False/")
	if want := "False/" + controller.ReasonInvalidNIC; got[:len(want)] != want {
		t.Fatalf("Ready = %s, want %s", got, want)
	}
	time.Sleep(2 * time.Second) // a looping claim would change its reason or message
	if again := readyOf(t, c, ns, "eui64"); again != got {
		t.Errorf("Ready moved from %q to %q", got, again)
	}
}
