package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/readiness"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// clientSpec is one VM: a real client program on one NIC.
type clientSpec struct {
	name string
	v4   *netnstest.Client4 // nil: a DHCPv6 client
	v6   netnstest.Client6Kind
}

// clientSpecs are the VMs of the test, one client each. "mover" is the
// VM whose address the pool-change case moves.
var clientSpecs = []clientSpec{
	{name: "dhclient", v4: &netnstest.Dhclient4},
	{name: "udhcpc", v4: &netnstest.Udhcpc},
	{name: "dhcpcd", v4: &netnstest.Dhcpcd4},
	{name: "dhclient6", v6: netnstest.Dhclient},
	{name: "mover", v4: &netnstest.Dhclient4},
}

// vmClient is one VM of the test: its namespace on the segment, its
// config, the client program, a capture of its link, and the addresses
// its pool gave it over time.
type vmClient struct {
	s      *system
	spec   clientSpec
	h      host
	config string
	run4   *netnstest.Run4
	run6   *netnstest.Client6
	wire   *capture
	// expected are the addresses its config's status gave it, each from
	// a time on; the last one holds now.
	expected []expectation
}

type expectation struct {
	since  time.Time
	v4, v6 netip.Addr
}

// newClient attaches VM i's namespace and creates its config.
func (s *system) newClient(i int, spec clientSpec) *vmClient {
	s.t.Helper()
	mac := fmt.Sprintf("52:54:00:e2:00:%02x", i+1)
	c := &vmClient{s: s, spec: spec, config: "vm-" + spec.name}
	c.h = s.seg.attach(spec.name, mac)
	cfg := &v1alpha1.VMNetworkConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: poolNS, Name: c.config},
		Spec:       v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{{MAC: mac, Pool: poolName}}},
	}
	if err := s.c.Create(context.Background(), cfg); err != nil {
		s.t.Fatal(err)
	}
	c.wire = openCapture(s.t, c.h.NS, c.h.Iface, mac)
	return c
}

// expect records the addresses the pool gives the client from now on.
func (c *vmClient) expect(at time.Time, v4, v6 netip.Addr) {
	if n := len(c.expected); n > 0 && c.expected[n-1].v4 == v4 && c.expected[n-1].v6 == v6 {
		return
	}
	c.expected = append(c.expected, expectation{since: at, v4: v4, v6: v6})
}

// want is the address of the client's family the pool gives it now.
func (c *vmClient) want() netip.Addr {
	e := c.expected[len(c.expected)-1]
	if c.spec.v4 == nil {
		return e.v6
	}
	return e.v4
}

// allowed reports whether a is an address the pool gave the client at t
// (or, within grace before t, until then: a change takes a renewal to
// reach the client).
func (c *vmClient) allowed(a netip.Addr, t time.Time) bool {
	for i, e := range c.expected {
		if e.since.After(t) {
			break
		}
		next := time.Time{}
		if i+1 < len(c.expected) {
			next = c.expected[i+1].since
		}
		if (e.v4 == a || e.v6 == a) && (next.IsZero() || !t.After(next)) {
			return true
		}
	}
	return false
}

// start starts the client program.
func (c *vmClient) start() {
	if c.spec.v4 != nil {
		c.run4 = netnstest.StartClient4(c.s.t, *c.spec.v4, c.h.NS, c.h.Iface)
		return
	}
	netnstest.LinkLocal(c.s.t, c.h.NS, c.h.Iface)
	c.run6 = netnstest.StartClient6(c.s.t, c.spec.v6, c.h.pair(), netnstest.Client6Config{})
}

// name is the client program and VM, as the table shows it.
func (c *vmClient) name() string { return c.spec.name }

// events are the client's binding events (bound, renewed) so far, and
// those that dropped an address. DHCPv6 events carry no time (zero).
func (c *vmClient) events() (held, dropped []heldEvent) {
	if c.run4 != nil {
		for _, e := range c.run4.Events() {
			a, _ := netip.ParseAddr(e.Addr)
			switch e.Kind {
			case "bound", "renew":
				held = append(held, heldEvent{e.At, a, e.Name})
			case "nak":
				dropped = append(dropped, heldEvent{e.At, a, e.Name})
			}
		}
		return held, dropped
	}
	for _, e := range c.run6.Events() {
		switch e.Reason {
		case "BOUND6", "RENEW6", "REBIND6", "REBOOT6":
			held = append(held, heldEvent{time.Time{}, e.Addr, e.Reason})
		case "EXPIRE6", "RELEASE6", "STOP6":
			dropped = append(dropped, heldEvent{time.Time{}, e.Addr, e.Reason})
		}
	}
	return held, dropped
}

// heldEvent is a script event of an address, and when it ran.
type heldEvent struct {
	at   time.Time
	addr netip.Addr
	what string
}

// waitBound waits until the kernel holds the client's address.
func (c *vmClient) waitBound(timeout time.Duration) {
	c.s.t.Helper()
	deadline := time.Now().Add(timeout)
	for !slices.Contains(c.h.addrs(c.s.t), c.want()) {
		if time.Now().After(deadline) {
			c.s.t.Fatalf("%s: %s not bound within %v; it holds %v", c.name(), c.want(), timeout, c.h.addrs(c.s.t))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitRenewal waits until the client's link saw a renewal after from
// answered.
func (c *vmClient) waitRenewal(from time.Time, timeout time.Duration) {
	c.s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, x := range c.wire.exchanges(from, time.Now()) {
			if x.req.renewal && len(x.replies) > 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			c.s.t.Fatalf("%s: no renewal answered within %v", c.name(), timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// verdict is vmnetkit's readiness verdict on what the client's NIC holds.
func (c *vmClient) verdict() readiness.Verdict {
	dev := readiness.Device{MAC: c.h.MAC, DHCP4: c.spec.v4 != nil, DHCP6: c.spec.v4 == nil}
	return readiness.Evaluate(readiness.Input{
		Devices: []readiness.Device{dev},
		NICs:    []readiness.NIC{{MAC: c.h.MAC, Addrs: c.h.addrs(c.s.t)}},
	}, readiness.Strict)
}
