package agent

import (
	"context"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/pooltest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/packetsocket"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// The DHCPv6 lab: the server's link, and the lifetimes the tests serve,
// short enough to see renewals (T1 = 0.5 x preferred = 2 s).
const (
	lab6Server    = "2001:db8:30::1/64"
	lab6DNS       = "2001:db8:30::53"
	lab6Preferred = 4 * time.Second
	lab6Valid     = 8 * time.Second
)

var lab6Search = []string{"lab.example", "example"}

// lab6Pool is a dual-stack pool: the DHCPv4 lab pool with an IPv6 part
// whose status.ipv6.allocated is allocated6 (address to MAC).
func lab6Pool(allocated6 map[string]string) *poolsource.Pool {
	p := labtest.Pool(dhcp4test.LabAllocated())
	p.Spec.IPv6 = &v1alpha1.IPPoolIPv6Spec{
		CIDR: "2001:db8:30::/64", DNS: []string{lab6DNS}, DomainSearch: lab6Search,
		PreferredLifetime: &metav1.Duration{Duration: lab6Preferred}, ValidLifetime: &metav1.Duration{Duration: lab6Valid},
	}
	p.Status.IPv6 = &poolsource.FamilyStatus{Allocated: allocated6}
	return p
}

// sent6 is one DHCPv6 reply the agent sent, decoded.
type sent6 struct {
	typ    dhcp6wire.MessageType
	status []dhcp6wire.StatusCode // of each IA_NA, then the message's
	addrs  []dhcp6wire.IAAddr
}

// tap6 is a Conn that records the DHCPv6 replies sent through it, and
// through the packet socket it wraps (frames).
type tap6 struct {
	Conn
	mu   sync.Mutex
	sent []sent6
}

func (c *tap6) WriteToUDPAddrPort(b []byte, to netip.AddrPort) (int, error) {
	n, err := c.Conn.WriteToUDPAddrPort(b, to)
	c.record(b, err)
	return n, err
}

// frames wraps mc so that the replies sent through it are recorded too.
func (c *tap6) frames(mc Multicast6) Multicast6 { return &tapFrames{Multicast6: mc, tap: c} }

type tapFrames struct {
	Multicast6
	tap *tap6
}

// BadChecksums is the packet socket's, for Serve6's metrics.
func (f *tapFrames) BadChecksums() uint64 {
	if c, ok := f.Multicast6.(interface{ BadChecksums() uint64 }); ok {
		return c.BadChecksums()
	}
	return 0
}

func (f *tapFrames) WriteTo(b []byte, to netip.AddrPort, mac [6]byte) (int, error) {
	n, err := f.Multicast6.WriteTo(b, to, mac)
	f.tap.record(b, err)
	return n, err
}

func (c *tap6) record(b []byte, err error) {
	var p dhcp6wire.Packet
	if err == nil && dhcp6wire.Decode(&p, slices.Clone(b)) == nil {
		s := sent6{typ: p.Msg.Type}
		for _, ia := range p.Msg.IANA {
			s.status = append(s.status, ia.Status.Code)
			s.addrs = append(s.addrs, ia.Addrs...)
		}
		if p.Msg.Status.Present {
			s.status = append(s.status, p.Msg.Status.Code)
		}
		c.mu.Lock()
		c.sent = append(c.sent, s)
		c.mu.Unlock()
	}
}

func (c *tap6) replies() []sent6 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sent)
}

// lab6 is an agent serving a dual-stack pool file on the server side of a
// veth pair, DHCPv6 on its production sockets (packet socket and
// udpsocket.ListenIPv6), DHCPv4 on udpsocket.Listen.
type lab6 struct {
	p    *netnstest.Pair
	a    *Agent
	path string
	tap  *tap6
	logs *logtest.Buffer
}

func newLab6(t *testing.T, clientMAC string, allocated6 map[string]string, opts ...Option) *lab6 {
	t.Helper()
	return newLab6With(t, true, clientMAC, allocated6, opts...)
}

// newLab6With is newLab6 with (packet true) or without the packet socket:
// without, the agent's command's fallback, one UDP socket in the group.
func newLab6With(t *testing.T, packet bool, clientMAC string, allocated6 map[string]string, opts ...Option) *lab6 {
	t.Helper()
	netnstest.Require(t)
	l := &lab6{p: netnstest.NewPair(t, clientMAC, lab6Server, "10.77.0.2/24"), logs: &logtest.Buffer{},
		path: filepath.Join(t.TempDir(), "pool.json")}
	// The agent answers from the server's link-local address, which is
	// tentative for about a second after the link comes up (DAD): on a
	// loaded machine a first exchange then failed with "no IPv6 link-local
	// address". A host's agent starts on a link that is up.
	netnstest.LinkLocal(t, l.p.ServerNS, l.p.ServerIf)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent log:\n%s", l.logs)
		}
	})
	pooltest.WriteFile(t, l.path, lab6Pool(allocated6))
	l.a = New(nil, append([]Option{WithLogger(logtest.Logger(l.logs, packetLevel)), WithServerDUID([]byte{0, 3, 0, 1, 2, 0, 0, 0, 0, 0x53})}, opts...)...)
	file := poolsource.NewFile(l.path, poolsource.Loads(l.a.Apply), l.a.log)
	if err := file.Load(); err != nil {
		t.Fatal(err)
	}
	var mc Multicast6
	var conn6 *udpsocket.Socket
	if err := netnstest.In(l.p.ServerNS, func() (err error) {
		if !packet {
			conn6, err = udpsocket.ListenIPv6Group(l.p.ServerIf, netip.MustParseAddrPort("[::]:547"))
			return err
		}
		ps, err := packetsocket.Listen(l.p.ServerIf)
		if err != nil {
			return err
		}
		mc = ps
		conn6, err = udpsocket.ListenIPv6(l.p.ServerIf, netip.MustParseAddrPort("[::]:547"))
		return err
	}); err != nil {
		t.Fatalf("DHCPv6 sockets: %v", err)
	}
	l.tap = &tap6{Conn: conn6}
	if mc != nil {
		mc = l.tap.frames(mc)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served6, watched := make(chan error, 1), make(chan error, 1)
	go func() { served6 <- l.a.Serve6(ctx, l.tap, mc, l.p.ServerIf) }()
	go func() { watched <- file.Watch(ctx, 50*time.Millisecond) }()
	serveIn(t, l.a, listenIn(t, l.p.ServerNS, l.p.ServerIf)) // DHCPv4 beside it
	t.Cleanup(func() {
		cancel()
		if err := <-served6; err != nil {
			t.Errorf("Serve6: %v", err)
		}
		<-watched
	})
	return l
}

// sources are the identity sources the agent's REPLYs name, in order.
func (l *lab6) sources() []string {
	var s []string
	for _, line := range strings.Split(l.logs.String(), "\n") {
		if strings.Contains(line, `"REPLY"`) && strings.Contains(line, "bound=true") {
			if _, rest, ok := strings.Cut(line, `source="`); ok {
				src, _, _ := strings.Cut(rest, `"`)
				if len(s) == 0 || s[len(s)-1] != src {
					s = append(s, src)
				}
			}
		}
	}
	return s
}

var cmpAddr = cmp.Comparer(func(a, b netip.Addr) bool { return a == b })

func isBound(e netnstest.Event6) bool { return e.Reason == "BOUND6" || e.Reason == "REBOOT6" }

// checkBound checks a client's first binding: its MAC's address, with the
// pool's lifetimes, name server and search list, from the agent's DUID.
func checkBound(t *testing.T, l *lab6, e netnstest.Event6, addr string) {
	t.Helper()
	want := netnstest.Event6{Reason: e.Reason, Addr: netip.MustParseAddr(addr), Preferred: lab6Preferred, Valid: lab6Valid,
		DNS: lab6DNS, Search: strings.Join(lab6Search, " "), ServerID: "00030001020000000053", ClientID: e.ClientID}
	if diff := cmp.Diff(want, e, cmpAddr, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Env" }, cmp.Ignore())); diff != "" {
		t.Errorf("bound (-want +got):\n%s", diff)
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
