package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
)

// TestFieldCase2HarvesterIPPool runs case 2 of docs/field-cases.md on the
// real API server: the Harvester IPPool a user showed, as an IPPool with
// exactly its strings and its two allocations in status.allocated, as if
// another process had written them. The operator restores both (each MAC's
// claim gets its address back), counts the pool, hands a new MAC the lowest
// free address, and, paused, publishes CacheReady False.
//
// The counts differ from the ones that project shows (available 247, used
// 2): it subtracts only what is used from the range's 249 addresses, while
// the operator keeps the 3 excluded addresses apart (available 244). Paused,
// that project writes CacheReady and AgentReady False with reason "Error";
// this operator has no AgentReady (the agent reads the IPPool itself) and
// says why with reason "Paused": being paused is no error. Claims keep their
// addresses while the pool is paused; new ones wait.
func TestFieldCase2HarvesterIPPool(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "field-case-2")

	p := &v1alpha1.IPPool{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "harvester"},
		Spec: v1alpha1.IPPoolSpec{
			Network:    "default/vm-net",
			CIDR:       "192.168.30.0/24",
			ServerIP:   "192.168.30.251",
			Router:     "192.168.30.1",
			RangeStart: "192.168.30.2",
			RangeEnd:   "192.168.30.250",
			Exclude:    []string{"192.168.30.5", "192.168.30.6", "192.168.30.7"},
			LeaseTime:  &metav1.Duration{Duration: 300 * time.Second},
		},
	}
	if err := c.Create(ctx, p); err != nil {
		t.Fatalf("the field's IPPool is refused: %v", err)
	}
	p.Status.Allocated = map[string]string{
		"192.168.30.120": "fa:cf:8e:50:82:fc",
		"192.168.30.217": "76:69:f4:cb:e6:dd",
	}
	if err := c.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}

	m := startManager(t, cfg, ns, "epoch-field-case-2", nil)
	waitPoolsReady(t, c, ns, m.epoch, "harvester")

	// Both VMs get their addresses back; a new VM gets .2.
	for name, mac := range map[string]string{"vm-a": "fa:cf:8e:50:82:fc", "vm-b": "76:69:f4:cb:e6:dd", "vm-new": "52:54:00:30:00:01"} {
		if err := c.Create(ctx, claimOn(ns, name, mac, "harvester")); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"vm-a": "192.168.30.120", "vm-b": "192.168.30.217", "vm-new": "192.168.30.2"}
	for name := range want {
		waitReady(t, c, ns, name, "True/"+controller.ReasonAllocated)
	}
	got := map[string]string{}
	for name := range want {
		vc := &v1alpha1.VMNetworkConfig{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, vc); err != nil {
			t.Fatal(err)
		}
		for _, n := range vc.Status.NICs {
			got[name] = n.Address
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("addresses of the claims (-want +got):\n%s", diff)
	}

	// The status: the three allocations, the excluded markers, the counts.
	wantStatus := map[string]string{
		"192.168.30.120": "fa:cf:8e:50:82:fc", "192.168.30.217": "76:69:f4:cb:e6:dd", "192.168.30.2": "52:54:00:30:00:01",
		"192.168.30.5": "EXCLUDED", "192.168.30.6": "EXCLUDED", "192.168.30.7": "EXCLUDED",
		"size": "249", "used": "3", "available": "243",
	}
	kubetest.Eventually(t, 30*time.Second, "the pool's status", func() (bool, string) {
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "harvester"}, p); err != nil {
			return false, err.Error()
		}
		st := map[string]string{"size": p.Status.Size, "used": p.Status.Used, "available": p.Status.Available}
		for a, o := range p.Status.Allocated {
			st[a] = o
		}
		diff := cmp.Diff(wantStatus, st)
		return diff == "", fmt.Sprintf("status (-want +got):\n%s", diff)
	})

	// Paused: CacheReady False/Paused; the bound VMs keep their addresses,
	// a new VM waits.
	p.Spec.Paused = true
	if err := c.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, 30*time.Second, "CacheReady False/Paused", func() (bool, string) {
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "harvester"}, p); err != nil {
			return false, err.Error()
		}
		st, reason := cacheReady(p)
		return st == "False" && reason == "Paused", st + "/" + reason
	})
	if err := c.Create(ctx, claimOn(ns, "vm-paused", "52:54:00:30:00:02", "harvester")); err != nil {
		t.Fatal(err)
	}
	waitReady(t, c, ns, "vm-paused", "False/"+controller.ReasonPoolNotReady)
	for name := range want {
		if got := readyOf(t, c, ns, name); got[:5] != "True/" {
			t.Errorf("claim %s while its pool is paused: %s", name, got)
		}
	}
}

// TestFieldCase2HarvesterIPPoolDualStack runs the dual-stack step of case 2's
// roadmap: the same Harvester IPPool, its two IPv4 allocations in
// status.allocated, with an IPv6 part whose range is 65,537 addresses, just
// above the 65,535 that project caps IPv6 ranges at (no rule may refuse it
// here). The operator restores the IPv4 allocations, gives each VM its
// IPv4 address first and then an IPv6 one (the lowest of the range), and
// counts both families.
func TestFieldCase2HarvesterIPPoolDualStack(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "field-case-2-dual")

	p := &v1alpha1.IPPool{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "harvester"},
		Spec: v1alpha1.IPPoolSpec{
			Network: "default/vm-net", CIDR: "192.168.30.0/24",
			ServerIP: "192.168.30.251", Router: "192.168.30.1",
			RangeStart: "192.168.30.2", RangeEnd: "192.168.30.250",
			Exclude:   []string{"192.168.30.5", "192.168.30.6", "192.168.30.7"},
			LeaseTime: &metav1.Duration{Duration: 300 * time.Second},
			IPv6: &v1alpha1.IPPoolIPv6Spec{
				CIDR: "fd00:30::/64", RangeStart: "fd00:30::1:0", RangeEnd: "fd00:30::2:0", // 65,537 addresses
				Reserved: []string{"fd00:30::1"},
			},
		},
	}
	if err := c.Create(ctx, p); err != nil {
		t.Fatalf("the field's dual-stack IPPool is refused: %v", err)
	}
	p.Status.Allocated = map[string]string{
		"192.168.30.120": "fa:cf:8e:50:82:fc",
		"192.168.30.217": "76:69:f4:cb:e6:dd",
	}
	if err := c.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	m := startManager(t, cfg, ns, "epoch-field-case-2-dual", nil)
	waitPoolsReady(t, c, ns, m.epoch, "harvester")

	// One VM at a time, so the IPv6 order is known.
	want := map[string]v1alpha1.NICStatus{}
	for i, vm := range []struct{ name, mac, addr string }{
		{"vm-a", "fa:cf:8e:50:82:fc", "192.168.30.120"},
		{"vm-b", "76:69:f4:cb:e6:dd", "192.168.30.217"},
		{"vm-new", "52:54:00:30:00:01", "192.168.30.2"},
	} {
		if err := c.Create(ctx, claimOn(ns, vm.name, vm.mac, "harvester")); err != nil {
			t.Fatal(err)
		}
		waitReady(t, c, ns, vm.name, "True/"+controller.ReasonAllocated)
		want[vm.name] = v1alpha1.NICStatus{MAC: vm.mac, Pool: "harvester", Address: vm.addr, IPv6Address: fmt.Sprintf("fd00:30::1:%x", i)}
	}
	got := map[string]v1alpha1.NICStatus{}
	for name := range want {
		vc := &v1alpha1.VMNetworkConfig{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, vc); err != nil {
			t.Fatal(err)
		}
		got[name] = vc.Status.NICs[0]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NICs of the claims (-want +got):\n%s", diff)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "harvester"}, p); err != nil {
		t.Fatal(err)
	}
	wantIPv6 := &v1alpha1.IPPoolFamilyStatus{
		Allocated: map[string]string{
			"fd00:30::1:0": "fa:cf:8e:50:82:fc", "fd00:30::1:1": "76:69:f4:cb:e6:dd", "fd00:30::1:2": "52:54:00:30:00:01",
		},
		Size: "65537", Used: "3", Available: "65534",
	}
	if diff := cmp.Diff(wantIPv6, p.Status.IPv6); diff != "" {
		t.Errorf("status.ipv6 (-want +got):\n%s", diff)
	}
	if p.Status.Used != "3" || p.Status.Available != "243" {
		t.Errorf("IPv4 used/available = %s/%s, want 3/243", p.Status.Used, p.Status.Available)
	}
}
