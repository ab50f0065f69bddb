package agent

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/apiserver"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// TestIPPoolWatch6 runs the API-server mode with a dual-stack IPPool (the
// operator's CRD, spec.ipv6 and status.ipv6 written as the operator
// writes them): the IPv6 table follows status.ipv6.allocated, and a
// DHCPv6 DECLINE right after the REPLY that bound the address becomes a
// Warning event AddressDeclined on the IPPool, as a DHCPv4 DECLINE does.
func TestIPPoolWatch6(t *testing.T) {
	ctx, dc, kc, pools := startIPPoolAPI(t)
	obj := ippoolObject(t, "lab", nil)
	if err := unstructured.SetNestedMap(obj.Object, map[string]any{
		"cidr": "2001:db8:30::/64", "dns": []any{lab6DNS}, "preferredLifetime": "30m", "validLifetime": "1h",
	}, "spec", "ipv6"); err != nil {
		t.Fatal(err)
	}
	if _, err := pools.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	setAllocated6 := func(allocated map[string]any) {
		t.Helper()
		u, err := pools.Get(ctx, "lab", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedMap(u.Object, allocated, "status", "ipv6", "allocated"); err != nil {
			t.Fatal(err)
		}
		if _, err := pools.UpdateStatus(ctx, u, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setAllocated6(map[string]any{"2001:db8:30::a": dhcp4test.MACA})

	recorder, stopEvents := apiserver.NewEventRecorder(kc)
	defer stopEvents()
	var w *apiserver.IPPoolWatch
	record := apiserver.DeclineEvents(func() *unstructured.Unstructured { return w.Latest() }, recorder)
	a := New(nil, WithLogger(logr.Discard()), WithServerDUID([]byte{0, 3, 0, 1, 2, 0, 0, 0, 0, 0x53}),
		WithDeclineHook(func(d Decline) { record(d.MAC, d.Addr, d.Until) }))
	w = apiserver.NewIPPoolWatch(dc, "default", "lab", poolsource.Loads(a.Apply), logr.Discard())
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	addrOf := func(mac string) string {
		l, ok := a.Table6().Lookup(leasestore.MustParseMAC(mac))
		if !ok {
			return "none"
		}
		return l.Addr.String()
	}
	if got := addrOf(dhcp4test.MACA); got != "2001:db8:30::a" {
		t.Fatalf("after Run: macA at %s, want 2001:db8:30::a", got)
	}
	setAllocated6(map[string]any{"2001:db8:30::b": dhcp4test.MACB})
	for addrOf(dhcp4test.MACB) != "2001:db8:30::b" || addrOf(dhcp4test.MACA) != "none" {
		if ctx.Err() != nil {
			t.Fatalf("status.ipv6 did not reach the table: macA at %s, macB at %s", addrOf(dhcp4test.MACA), addrOf(dhcp4test.MACB))
		}
		time.Sleep(5 * time.Millisecond)
	}

	// macB's client binds its address, then declines it.
	duid := dhcp6wire.AppendDUIDLLT(nil, 1, leasestore.MustParseMAC(dhcp4test.MACB).As6())
	ia := []dhcp6wire.IANA{{IAID: 1, Addrs: []dhcp6wire.IAAddr{{Addr: netip.MustParseAddr("2001:db8:30::b")}}}}
	peer := netip.MustParseAddrPort("[fe80::1]:546")
	s, out := newScratch6(), &discardWriter{}
	for _, typ := range []dhcp6wire.MessageType{dhcp6wire.Request, dhcp6wire.Decline} {
		m := dhcp6wire.AppendMessage(nil, &dhcp6wire.Message{Type: typ, TransactionID: [3]byte{0, 0, byte(typ)},
			ClientID: duid, ServerID: a.ServerDUID(), IANA: ia, HasElapsedTime: true})
		a.handle6(s, out6{conn: out}, m, dhcp6.Arrival{Source: peer.Addr()}, peer, "eth0")
	}
	e := waitDeclinedEvent(t, ctx, kc, func() string { return fmt.Sprintf("; agent counted %+v", a.Stats6(time.Now())) })
	if e.InvolvedObject.Kind != "IPPool" || e.InvolvedObject.Name != "lab" ||
		!strings.HasPrefix(e.Message, "client 52:54:00:aa:00:02 declined 2001:db8:30::b ") {
		t.Errorf("event on %s/%s: %q", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Message)
	}
}
