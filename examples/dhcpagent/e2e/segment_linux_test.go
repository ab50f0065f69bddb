package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
)

// segment is one Ethernet segment: a Linux bridge in a namespace of its
// own, and hosts (each a namespace with one veth end, the other end a
// port of the bridge) that the test attaches to it. Multicast snooping is
// off, so that DHCPv6 multicasts reach every port whether or not a host
// has joined ff02::1:2 yet; the bridge runs no STP, so a port forwards at
// once.
type segment struct {
	t      testing.TB
	id     string
	ns     string // the bridge's namespace
	bridge string
	hosts  int
}

// host is a namespace on the segment with one interface.
type host struct {
	Name, NS, Iface, MAC string
}

// pair is the host as netnstest's DHCPv6 client runner sees it.
func (h host) pair() *netnstest.Pair { return &netnstest.Pair{ClientNS: h.NS, ClientIf: h.Iface} }

// newSegment creates the bridge's namespace (unique names per run);
// t.Cleanup deletes it and every host's.
func newSegment(t testing.TB) *segment {
	t.Helper()
	b := make([]byte, 3)
	rand.Read(b)
	s := &segment{t: t, id: hex.EncodeToString(b), bridge: "br0"}
	s.ns = s.newNS("sw")
	netnstest.IP(t, "-n", s.ns, "link", "add", s.bridge, "type", "bridge", "mcast_snooping", "0", "stp_state", "0")
	netnstest.IP(t, "-n", s.ns, "link", "set", s.bridge, "up")
	return s
}

// newNS creates the namespace vmnetkit-e2e-ID-name with DAD off (set
// before any veth end arrives, so that each inherits it), and deletes it
// at the end of the test.
func (s *segment) newNS(name string) string {
	s.t.Helper()
	ns := "vmnetkit-e2e-" + s.id + "-" + name
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		s.t.Fatalf("cannot create network namespace %s: %v\n%s", ns, err, out)
	}
	s.t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
			s.t.Errorf("ip netns del %s: %v\n%s", ns, err, out)
		}
	})
	netnstest.Sysctl(s.t, ns, "net.ipv6.conf.default.accept_dad", "0")
	netnstest.Sysctl(s.t, ns, "net.ipv6.conf.all.accept_dad", "0")
	netnstest.IP(s.t, "-n", ns, "link", "set", "lo", "up")
	return ns
}

// attach creates host name with an interface of MAC mac on the segment,
// addressed with cidrs (none: only its link-local address, as a VM's NIC
// before DHCP).
func (s *segment) attach(name, mac string, cidrs ...string) host {
	s.t.Helper()
	h := host{Name: name, NS: s.newNS(name), MAC: mac}
	h.Iface = fmt.Sprintf("e%s%d", s.id, s.hosts) // 8 or 9 bytes: IFNAMSIZ is 16
	port := fmt.Sprintf("p%s%d", s.id, s.hosts)
	s.hosts++
	netnstest.IP(s.t, "link", "add", h.Iface, "netns", h.NS, "address", mac, "type", "veth", "peer", "name", port, "netns", s.ns)
	netnstest.IP(s.t, "-n", s.ns, "link", "set", port, "master", s.bridge)
	netnstest.IP(s.t, "-n", s.ns, "link", "set", port, "up")
	for _, c := range cidrs {
		netnstest.IP(s.t, "-n", h.NS, "addr", "add", c, "dev", h.Iface, "nodad")
	}
	netnstest.IP(s.t, "-n", h.NS, "link", "set", h.Iface, "up")
	return h
}

// addrs are the global addresses the kernel holds on the host's
// interface now, both families, sorted.
func (h host) addrs(t testing.TB) []netip.Addr {
	t.Helper()
	out, err := exec.Command("ip", "-n", h.NS, "-o", "addr", "show", "dev", h.Iface, "scope", "global").CombinedOutput()
	if err != nil {
		t.Fatalf("ip addr show in %s: %v\n%s", h.NS, err, out)
	}
	var addrs []netip.Addr
	for _, f := range strings.Fields(string(out)) {
		if p, err := netip.ParsePrefix(f); err == nil {
			addrs = append(addrs, p.Addr())
		}
	}
	slices.SortFunc(addrs, netip.Addr.Compare)
	return addrs
}
