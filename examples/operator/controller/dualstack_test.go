package controller_test

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/operator/controller"
	"github.com/vmnetkit/vmnetkit/ipam"
)

// poolDual is a dual-stack pool: an IPv4 /24 with 230 addresses to hand out
// and an IPv6 /64 whose range is the whole /64 but two reserved addresses
// and an excluded block.
var poolDual = v1alpha1.IPPoolSpec{
	Network: "vm-net-dual", CIDR: "10.30.0.0/24",
	RangeStart: "10.30.0.10", RangeEnd: "10.30.0.250",
	Exclude:  []string{"10.30.0.100-10.30.0.109"},
	ServerIP: "10.30.0.10", Router: "10.30.0.1",
	IPv6: &v1alpha1.IPPoolIPv6Spec{
		CIDR:     "fd00:30::/64",
		Exclude:  []string{"fd00:30::100/120"},
		Reserved: []string{"fd00:30::1", "fd00:30::2"},
		DNS:      []string{"fd00:30::53"}, DomainSearch: []string{"vms.example"},
		PreferredLifetime: &metav1.Duration{Duration: 30 * time.Minute},
		ValidLifetime:     &metav1.Duration{Duration: time.Hour},
	},
}

// dualClaim returns VM i's claim: two NICs on pool "dual".
func dualClaim(ns string, i int) *v1alpha1.VMNetworkConfig {
	return &v1alpha1.VMNetworkConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("vm-%03d", i)},
		Spec: v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{
			{MAC: fmt.Sprintf("52:54:00:0d:%02x:%02x", i>>8, i&0xff), Pool: "dual"},
			{MAC: fmt.Sprintf("52:54:00:1d:%02x:%02x", i>>8, i&0xff), Pool: "dual"},
		}},
	}
}

// owners returns the MAC-owned entries of a status map.
func owners(m map[string]string) map[string]string {
	out := map[string]string{}
	for a, o := range m {
		if o != ipam.MarkerExcluded && o != ipam.MarkerReserved {
			out[a] = o
		}
	}
	return out
}

// checkDual checks a dual-stack pool against its claims: every NIC of every
// claim is Ready with an IPv4 address in the IPv4 part and an IPv6 address
// in the IPv6 part (never excluded, reserved or out of range); no address
// of either family is given twice; status.allocated and
// status.ipv6.allocated hold exactly the claims' addresses, and used counts
// them. It returns the two owner maps.
func checkDual(t *testing.T, c client.Client, ns, pool string, wantNICs int) (v4, v6 map[string]string) {
	t.Helper()
	ctx := context.Background()
	p := &v1alpha1.IPPool{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: pool}, p); err != nil {
		t.Fatal(err)
	}
	var claims v1alpha1.VMNetworkConfigList
	if err := c.List(ctx, &claims, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	lim4 := limitsOf(t, p.Spec)
	six := v1alpha1.IPPoolSpec{CIDR: p.Spec.IPv6.CIDR, RangeStart: "fd00:30::1", RangeEnd: "fd00:30::ffff:ffff:ffff:ffff",
		Exclude: p.Spec.IPv6.Exclude, ServerIP: p.Spec.IPv6.Reserved[0], Router: p.Spec.IPv6.Reserved[1]}
	lim6 := limitsOf(t, six)
	v4, v6 = map[string]string{}, map[string]string{}
	for _, vc := range claims.Items {
		if !claimReady(&vc) || len(vc.Status.NICs) != len(vc.Spec.NICs) {
			t.Errorf("claim %s: %d NICs in status, Ready %+v", vc.Name, len(vc.Status.NICs), vc.Status.Conditions)
			continue
		}
		for _, s := range vc.Status.NICs {
			for _, f := range []struct {
				addr string
				lim  limits
				own  map[string]string
				is4  bool
			}{{s.Address, lim4, v4, true}, {s.IPv6Address, lim6, v6, false}} {
				a, err := netip.ParseAddr(f.addr)
				if err != nil || a.Is4() != f.is4 {
					t.Errorf("claim %s NIC %s: address %q, want an IPv4 then an IPv6 address: %+v", vc.Name, s.MAC, f.addr, s)
					continue
				}
				if why := f.lim.refuses(a); why != "" {
					t.Errorf("claim %s NIC %s got %s, which is %s", vc.Name, s.MAC, a, why)
				}
				if other, dup := f.own[f.addr]; dup {
					t.Errorf("address %s given twice: to %s and %s", f.addr, other, s.MAC)
				}
				f.own[f.addr] = s.MAC
			}
		}
	}
	if len(v4) != wantNICs || len(v6) != wantNICs {
		t.Errorf("claims hold %d IPv4 and %d IPv6 addresses, want %d of each", len(v4), len(v6), wantNICs)
	}
	if p.Status.IPv6 == nil {
		t.Fatalf("pool %s has no status.ipv6", pool)
	}
	if got := owners(p.Status.Allocated); !maps.Equal(got, v4) {
		t.Errorf("status.allocated differs from the claims (claims vs status):\n%s", mapDiff(v4, got))
	}
	if got := owners(p.Status.IPv6.Allocated); !maps.Equal(got, v6) {
		t.Errorf("status.ipv6.allocated differs from the claims (claims vs status):\n%s", mapDiff(v6, got))
	}
	if p.Status.Used != fmt.Sprint(wantNICs) || p.Status.IPv6.Used != fmt.Sprint(wantNICs) {
		t.Errorf("used IPv4 %s, IPv6 %s; want %d each", p.Status.Used, p.Status.IPv6.Used, wantNICs)
	}
	if want := lim6.size.String(); p.Status.IPv6.Size != want {
		t.Errorf("status.ipv6.size = %s, want %s", p.Status.IPv6.Size, want)
	}
	return v4, v6
}

// TestDualStackRestart: a dual-stack pool (IPv4 /24, IPv6 /64) serves 100
// claims of 2 NICs, each NIC an IPv4 and an IPv6 address; a restarted
// operator rebuilds both families exactly from status.allocated and
// status.ipv6.allocated (CacheReady True for its own epoch only once both
// are rebuilt), hands out no address twice to 20 more NICs, and a deleted
// claim frees both families.
func TestDualStackRestart(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "dualstack")
	createPool(t, c, ns, "dual", poolDual)

	first := startManager(t, cfg, ns, "epoch-dual-first", nil)
	waitPoolsReady(t, c, ns, first.epoch, "dual")
	step := time.Now()
	if err := kubetest.InParallel(100, 16, func(i int) error { return c.Create(ctx, dualClaim(ns, i)) }); err != nil {
		t.Fatal(err)
	}
	waitClaimsReady(t, c, ns, 100)
	before4, before6 := checkDual(t, c, ns, "dual", 200)
	t.Logf("100 claims (200 NICs, 400 addresses) Ready in %v", time.Since(step).Round(time.Millisecond))

	first.stop()
	events, stopWatch := recordPools(t, c, ns)
	second := startManager(t, cfg, ns, "epoch-dual-second", nil)
	waitPoolsReady(t, c, ns, second.epoch, "dual")
	stopWatch(second.epoch, "dual")
	want := []poolEvent{
		{"dual", "True", "CacheBuilt", first.epoch},
		{"dual", "False", "OwnerRestarted", second.epoch},
		{"dual", "True", "CacheBuilt", second.epoch},
	}
	if got := events(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("CacheReady went through\n%v\nwant\n%v", got, want)
	}
	after4, after6 := checkDual(t, c, ns, "dual", 200)
	if !maps.Equal(before4, after4) || !maps.Equal(before6, after6) {
		t.Errorf("the restart changed the allocations: IPv4\n%s\nIPv6\n%s", mapDiff(before4, after4), mapDiff(before6, after6))
	}

	// The rebuilt cache knows every address: 10 more claims get fresh ones
	// of both families, and 10 deleted claims free both of theirs.
	err := kubetest.InParallel(20, 8, func(i int) error {
		if i < 10 {
			return c.Create(ctx, dualClaim(ns, 100+i))
		}
		return c.Delete(ctx, dualClaim(ns, i))
	})
	if err != nil {
		t.Fatal(err)
	}
	waitClaimsReady(t, c, ns, 100)
	final4, final6 := checkDual(t, c, ns, "dual", 200)
	for i := 10; i < 20; i++ {
		for _, n := range dualClaim(ns, i).Spec.NICs {
			for _, m := range []map[string]string{final4, final6} {
				for a, mac := range m {
					if mac == n.MAC {
						t.Errorf("deleted claim vm-%03d's NIC %s still holds %s", i, n.MAC, a)
					}
				}
			}
		}
	}
	p := &v1alpha1.IPPool{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "dual"}, p); err != nil {
		t.Fatal(err)
	}
	if cond := capacityOf(t, c, ns, "dual"); cond == nil || cond.Status != metav1.ConditionFalse ||
		!strings.Contains(cond.Message, "IPv4 200, IPv6 200") {
		t.Errorf("CapacityLimited = %+v, want False counting each family", cond)
	}
}

// eventsOf returns the messages of the Warning Events with reason posted on
// object name.
func eventsOf(t *testing.T, c client.Client, ns, name, reason string) []string {
	t.Helper()
	var list corev1.EventList
	if err := c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Name == name && ev.Reason == reason && ev.Type == corev1.EventTypeWarning {
			msgs = append(msgs, ev.Message)
		}
	}
	return msgs
}

// TestDualStackIPv6Exhausted: a pool whose IPv6 part holds 2 addresses
// (a /126 with a short range) serves a third NIC its IPv4 address; the
// claim says Ready=False, reason IPv6Exhausted, with one Warning Event
// naming IPv6; once another claim is deleted (both its families freed),
// the third NIC gets the freed IPv6 address and the claim turns Ready.
func TestDualStackIPv6Exhausted(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "ipv6-exhausted")
	createPool(t, c, ns, "tiny6", v1alpha1.IPPoolSpec{
		Network: "vm-net-tiny6", CIDR: "10.31.0.0/24", RangeStart: "10.31.0.10", RangeEnd: "10.31.0.50",
		IPv6: &v1alpha1.IPPoolIPv6Spec{CIDR: "fd00:31::/126", RangeStart: "fd00:31::1", RangeEnd: "fd00:31::2"},
	})
	startManager(t, cfg, ns, "epoch-tiny6", nil)
	waitPoolsReady(t, c, ns, "epoch-tiny6", "tiny6")

	for i, name := range []string{"vm-a", "vm-b"} {
		if err := c.Create(ctx, claimOn(ns, name, fmt.Sprintf("52:54:00:31:00:%02x", i), "tiny6")); err != nil {
			t.Fatal(err)
		}
		waitReady(t, c, ns, name, "True/Allocated")
	}
	if err := c.Create(ctx, claimOn(ns, "vm-c", "52:54:00:31:00:02", "tiny6")); err != nil {
		t.Fatal(err)
	}
	got := waitReady(t, c, ns, "vm-c", "False/"+controller.ReasonIPv6Exhausted)
	if !strings.Contains(got, "has its IPv4 address 10.31.0.12 but no IPv6 address") || !strings.Contains(got, "IPv6 part of pool") {
		t.Errorf("vm-c Ready = %q, want it to name the IPv4 address kept and the IPv6 part exhausted", got)
	}
	vc := &v1alpha1.VMNetworkConfig{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "vm-c"}, vc); err != nil {
		t.Fatal(err)
	}
	wantNIC := []v1alpha1.NICStatus{{MAC: "52:54:00:31:00:02", Pool: "tiny6", Address: "10.31.0.12"}}
	if fmt.Sprint(vc.Status.NICs) != fmt.Sprint(wantNIC) {
		t.Errorf("vm-c status.nics = %+v, want %+v (IPv4 kept, no IPv6)", vc.Status.NICs, wantNIC)
	}
	p := &v1alpha1.IPPool{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "tiny6"}, p); err != nil {
		t.Fatal(err)
	}
	if p.Status.Used != "3" || p.Status.IPv6 == nil || p.Status.IPv6.Used != "2" || p.Status.IPv6.Available != "0" {
		t.Errorf("pool status: IPv4 used %s, IPv6 %+v; want 3 IPv4, 2 IPv6 used and 0 available", p.Status.Used, p.Status.IPv6)
	}
	// The claim is retried every 250 ms; the Event is posted once.
	time.Sleep(time.Second)
	var evs []string
	kubetest.Eventually(t, 10*time.Second, "one IPv6Exhausted Event on vm-c", func() (bool, string) {
		evs = eventsOf(t, c, ns, "vm-c", controller.ReasonIPv6Exhausted)
		return len(evs) == 1, fmt.Sprint(evs)
	})
	if !strings.Contains(evs[0], "no IPv6 address (it keeps its IPv4 address 10.31.0.12)") || !strings.Contains(evs[0], "pool exhausted") {
		t.Errorf("Event = %q, want it to say IPv6 is exhausted and the IPv4 address is kept", evs[0])
	}

	// Deleting vm-a frees both of its addresses; vm-c takes the IPv6 one.
	a := &v1alpha1.VMNetworkConfig{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "vm-a"}, a); err != nil {
		t.Fatal(err)
	}
	freed6 := a.Status.NICs[0].IPv6Address
	if err := c.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	waitReady(t, c, ns, "vm-c", "True/Allocated")
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "vm-c"}, vc); err != nil {
		t.Fatal(err)
	}
	if got := vc.Status.NICs[0]; got.Address != "10.31.0.12" || got.IPv6Address != freed6 {
		t.Errorf("vm-c NIC = %+v, want its IPv4 address 10.31.0.12 kept and vm-a's freed %s", got, freed6)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "tiny6"}, p); err != nil {
		t.Fatal(err)
	}
	want4 := map[string]string{"10.31.0.11": "52:54:00:31:00:01", "10.31.0.12": "52:54:00:31:00:02"}
	if got := owners(p.Status.Allocated); !maps.Equal(got, want4) {
		t.Errorf("status.allocated owners after vm-a's deletion:\n%s", mapDiff(want4, got))
	}
	if got := owners(p.Status.IPv6.Allocated); len(got) != 2 || got[freed6] != "52:54:00:31:00:02" {
		t.Errorf("status.ipv6.allocated owners after vm-a's deletion = %v, want vm-c on %s", got, freed6)
	}
}

// TestDualStackAddedLater: an IPv4 pool serving 3 claims gains spec.ipv6;
// the operator rebuilds the pool with both parts, and the claims it already
// served keep their IPv4 addresses and get an IPv6 address each.
func TestDualStackAddedLater(t *testing.T) {
	cfg := apiServer(t)
	c := kubetest.NewClient(t, cfg, scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "dual-later")
	createPool(t, c, ns, "later", v1alpha1.IPPoolSpec{Network: "vm-net-later", CIDR: "10.32.0.0/24",
		RangeStart: "10.32.0.10", RangeEnd: "10.32.0.50"})
	m := startManager(t, cfg, ns, "epoch-dual-later", nil)
	waitPoolsReady(t, c, ns, m.epoch, "later")
	for i := range 3 {
		if err := c.Create(ctx, claimOn(ns, fmt.Sprintf("vm-%d", i), fmt.Sprintf("52:54:00:32:00:%02x", i), "later")); err != nil {
			t.Fatal(err)
		}
	}
	waitClaimsReady(t, c, ns, 3)
	before := map[string]string{}
	var list v1alpha1.VMNetworkConfigList
	if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, vc := range list.Items {
		before[vc.Name] = vc.Status.NICs[0].Address
	}

	p := &v1alpha1.IPPool{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "later"}, p); err != nil {
		t.Fatal(err)
	}
	p.Spec.IPv6 = &v1alpha1.IPPoolIPv6Spec{CIDR: "fd00:32::/64"}
	if err := c.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, 60*time.Second, "every claim with an IPv6 address", func() (bool, string) {
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		for _, vc := range list.Items {
			if len(vc.Status.NICs) != 1 || vc.Status.NICs[0].IPv6Address == "" || !claimReady(&vc) {
				return false, fmt.Sprintf("%s: %+v %+v", vc.Name, vc.Status.NICs, vc.Status.Conditions)
			}
		}
		return true, ""
	})
	seen6 := map[string]bool{}
	for _, vc := range list.Items {
		n := vc.Status.NICs[0]
		if n.Address != before[vc.Name] {
			t.Errorf("%s: IPv4 address %s, had %s before the pool became dual-stack", vc.Name, n.Address, before[vc.Name])
		}
		if a, err := netip.ParseAddr(n.IPv6Address); err != nil || !netip.MustParsePrefix("fd00:32::/64").Contains(a) || seen6[n.IPv6Address] {
			t.Errorf("%s: IPv6 address %q, want a distinct one of fd00:32::/64", vc.Name, n.IPv6Address)
		}
		seen6[n.IPv6Address] = true
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "later"}, p); err != nil {
		t.Fatal(err)
	}
	if p.Status.IPv6 == nil || len(owners(p.Status.IPv6.Allocated)) != 3 || p.Status.Used != "3" {
		t.Errorf("pool status: IPv4 used %s, IPv6 %+v; want 3 of each", p.Status.Used, p.Status.IPv6)
	}
}
