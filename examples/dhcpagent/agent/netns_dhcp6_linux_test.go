package agent

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/google/go-cmp/cmp"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/packetsocket"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"
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
	p := labPool(labAllocated())
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

// tap6 is a Conn that records the DHCPv6 replies sent through it.
type tap6 struct {
	Conn
	mu   sync.Mutex
	sent []sent6
}

func (c *tap6) WriteToUDPAddrPort(b []byte, to netip.AddrPort) (int, error) {
	n, err := c.Conn.WriteToUDPAddrPort(b, to)
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
	return n, err
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
	logs *logBuffer
}

func newLab6(t *testing.T, clientMAC string, allocated6 map[string]string, opts ...Option) *lab6 {
	t.Helper()
	netnstest.Require(t)
	l := &lab6{p: netnstest.NewPair(t, clientMAC, lab6Server, "10.77.0.2/24"), logs: &logBuffer{},
		path: filepath.Join(t.TempDir(), "pool.json")}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent log:\n%s", l.logs)
		}
	})
	writePoolFile(t, l.path, lab6Pool(allocated6))
	l.a = New(nil, append([]Option{WithLogger(newTestLogger(l.logs)), WithServerDUID([]byte{0, 3, 0, 1, 2, 0, 0, 0, 0, 0x53})}, opts...)...)
	file := poolsource.NewFile(l.path, l.a.Accept, l.a.log)
	if err := file.Load(); err != nil {
		t.Fatal(err)
	}
	var mc *packetsocket.Socket
	var conn6 *net.UDPConn
	if err := netnstest.In(l.p.ServerNS, func() (err error) {
		if mc, err = packetsocket.Listen(l.p.ServerIf); err != nil {
			return err
		}
		conn6, err = udpsocket.ListenIPv6(l.p.ServerIf, netip.MustParseAddrPort("[::]:547"))
		return err
	}); err != nil {
		t.Fatalf("DHCPv6 sockets: %v", err)
	}
	l.tap = &tap6{Conn: conn6}
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

// TestNetns6Clients runs dhclient -6 and dhcpcd -6, each with its own
// DUID-LLT, against the agent over a veth: bind the MAC's address with
// every option, renew it, have it moved by the pool file (the old
// address comes back at lifetimes 0, the client ends with the new one),
// and release it.
func TestNetns6Clients(t *testing.T) {
	for _, kind := range []netnstest.Client6Kind{netnstest.Dhclient, netnstest.Dhcpcd} {
		t.Run(string(kind), func(t *testing.T) {
			const mac = "52:54:00:aa:00:01"
			l := newLab6(t, mac, map[string]string{"2001:db8:30::a": mac, "2001:db8:30::b": "52:54:00:aa:00:02"})
			netnstest.LinkLocal(t, l.p.ClientNS, l.p.ClientIf)
			c := netnstest.StartClient6(t, kind, l.p, netnstest.Client6Config{})
			bound := c.Wait("a binding", 20*time.Second, isBound)
			checkBound(t, l, bound, "2001:db8:30::a")
			renewed := c.WaitAfter(len(c.Events()), "a renewal", 10*time.Second, func(e netnstest.Event6) bool {
				return e.Reason == "RENEW6" && e.Addr == bound.Addr
			})
			if renewed.Preferred != lab6Preferred || renewed.Valid != lab6Valid {
				t.Errorf("renewed with lifetimes %v/%v, want %v/%v", renewed.Preferred, renewed.Valid, lab6Preferred, lab6Valid)
			}

			// Move the MAC to another address.
			n := len(c.Events())
			writePoolFile(t, l.path, lab6Pool(map[string]string{"2001:db8:30::20": mac, "2001:db8:30::b": "52:54:00:aa:00:02"}))
			moved := netip.MustParseAddr("2001:db8:30::20")
			c.WaitAfter(n, "the moved address", 15*time.Second, func(e netnstest.Event6) bool { return e.Addr == moved })
			deadline := time.Now().Add(10 * time.Second)
			for !slices.Equal(l.p.Addrs(t), []netip.Addr{moved}) && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			if got := l.p.Addrs(t); !slices.Equal(got, []netip.Addr{moved}) {
				t.Errorf("after the move the interface has %v, want only %s", got, moved)
			}
			zeroed := false
			for _, r := range l.tap.replies() {
				for _, ad := range r.addrs {
					if ad.Addr == bound.Addr && ad.Preferred == 0 && ad.Valid == 0 {
						zeroed = true
					}
				}
			}
			if !zeroed {
				t.Errorf("no REPLY returned the old address %s at lifetimes 0", bound.Addr)
			}

			c.Release()
			c.Wait("the release", 10*time.Second, func(e netnstest.Event6) bool { return e.Reason == "RELEASE6" })
			waitFor(t, "the agent to count the RELEASE", func() bool { return l.a.Stats6(time.Now()).Releases == 1 })
			if got := l.p.Addrs(t); len(got) != 0 {
				t.Errorf("after the release the interface has %v", got)
			}
			if !strings.Contains(l.logs.String(), `"DHCPv6 RELEASE" pool="default/lab" mac="52:54:00:aa:00:01"`) {
				t.Errorf("the agent did not log the RELEASE")
			}
			t.Logf("%s: sources %v", kind, l.sources())
		})
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

// TestNetns6Identity: clients whose DUID holds no MAC (DUID-UUID, DUID-EN,
// NetworkManager's and systemd-networkd's defaults) still get their MAC's
// address: from the frame's source MAC, which the agent's packet socket
// reads, for a universally and a locally administered MAC (02:..., as
// KubeVirt's MAC pools give, the case Kea 2.2 gets wrong), and for a
// locally administered MAC whose link-local address is not EUI-64 (set by
// hand), which nothing but the frame can tie to the MAC.
func TestNetns6Identity(t *testing.T) {
	uuid := []byte{0, 4, 0x6f, 0x1c, 0x9e, 0x10, 0x4b, 0x1d, 0x4e, 0x8a, 0x9c, 0x3e, 0x2a, 0x61, 0x7d, 0x05, 0x11, 0x42}
	en := []byte{0, 2, 0, 0, 0xab, 0x11, 0x9d, 0x2b, 0x6c, 0x41, 0x07, 0x23, 0xf1} // DUID-EN, systemd's enterprise number 43793
	for _, tc := range []struct {
		name      string
		kind      netnstest.Client6Kind
		mac       string
		duid      []byte
		linkLocal string // "": the kernel's EUI-64 one
	}{
		{"dhclient DUID-UUID universal MAC", netnstest.Dhclient, "52:54:00:aa:00:07", uuid, ""},
		{"dhcpcd DUID-UUID locally administered MAC", netnstest.Dhcpcd, "02:16:3e:00:00:07", uuid, ""},
		{"dhclient DUID-EN locally administered MAC non-EUI-64 link-local", netnstest.Dhclient, "02:16:3e:00:00:08", en, "fe80::1234"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLab6(t, tc.mac, map[string]string{"2001:db8:30::7": tc.mac})
			if tc.linkLocal != "" {
				netnstest.IP(t, "-n", l.p.ClientNS, "link", "set", l.p.ClientIf, "addrgenmode", "none")
				netnstest.IP(t, "-n", l.p.ClientNS, "-6", "addr", "flush", "dev", l.p.ClientIf, "scope", "link")
				netnstest.IP(t, "-n", l.p.ClientNS, "addr", "add", tc.linkLocal+"/64", "dev", l.p.ClientIf, "nodad")
			}
			if ll := netnstest.LinkLocal(t, l.p.ClientNS, l.p.ClientIf); tc.linkLocal != "" && ll.String() != tc.linkLocal {
				t.Fatalf("client link-local %s, want %s", ll, tc.linkLocal)
			}
			c := netnstest.StartClient6(t, tc.kind, l.p, netnstest.Client6Config{DUID: tc.duid})
			checkBound(t, l, c.Wait("a binding", 20*time.Second, isBound), "2001:db8:30::7")
			waitFor(t, "the agent to log its REPLY", func() bool { return len(l.sources()) > 0 }) // logged after it is sent
			if got := l.sources(); !slices.Equal(got, []string{"frame"}) {
				t.Errorf("the agent found the client's MAC from %v, want the frame", got)
			}
		})
	}
}

// TestNetns6Refused: a MAC the pool no longer holds gets no address: its
// client, started again after the pool file dropped it, is answered
// NoAddrsAvail and ends with no address; an INFORMATION-REQUEST (dhclient
// -S) from it still gets the pool's name server and search list.
func TestNetns6Refused(t *testing.T) {
	const mac = "52:54:00:aa:00:01"
	l := newLab6(t, mac, map[string]string{"2001:db8:30::a": mac})
	netnstest.LinkLocal(t, l.p.ClientNS, l.p.ClientIf)
	c := netnstest.StartClient6(t, netnstest.Dhclient, l.p, netnstest.Client6Config{})
	checkBound(t, l, c.Wait("a binding", 20*time.Second, isBound), "2001:db8:30::a")
	c.Stop()
	netnstest.IP(t, "-n", l.p.ClientNS, "-6", "addr", "flush", "dev", l.p.ClientIf, "scope", "global")
	writePoolFile(t, l.path, lab6Pool(map[string]string{"2001:db8:30::b": "52:54:00:aa:00:02"}))
	waitFor(t, "the new table", func() bool { return l.a.Table6().Len() == 1 && !hasLease6(l.a, mac) })

	before := len(l.tap.replies())
	c = netnstest.StartClient6(t, netnstest.Dhclient, l.p, netnstest.Client6Config{})
	waitFor(t, "an answer to the removed MAC", func() bool { return len(l.tap.replies()) > before })
	time.Sleep(3 * time.Second) // dhclient waits 1 s for ADVERTISEs; give it time to bind, which it must not
	for _, r := range l.tap.replies()[before:] {
		if r.typ != dhcp6wire.Advertise || !slices.Equal(r.status, []dhcp6wire.StatusCode{dhcp6wire.NoAddrsAvail}) || len(r.addrs) != 0 {
			t.Errorf("the removed MAC got %v %v with addresses %v, want ADVERTISE NoAddrsAvail without one", r.typ, r.status, r.addrs)
		}
	}
	for _, e := range c.Events() {
		if isBound(e) {
			t.Errorf("the removed MAC was bound: %v", e)
		}
	}
	if got := l.p.Addrs(t); len(got) != 0 {
		t.Errorf("the removed MAC's interface has %v", got)
	}
	c.Stop()

	info := netnstest.StartClient6(t, netnstest.Dhclient, l.p, netnstest.Client6Config{InfoOnly: true})
	e := info.Wait("the information reply", 10*time.Second, func(e netnstest.Event6) bool { return e.DNS != "" })
	if e.DNS != lab6DNS || e.Search != strings.Join(lab6Search, " ") || e.Addr.IsValid() {
		t.Errorf("information-request answered %v, want DNS %s, search %v and no address", e, lab6DNS, lab6Search)
	}
}

func hasLease6(a *Agent, mac string) bool {
	for l := range a.Table6().All() {
		if l.MAC.String() == mac {
			return true
		}
	}
	return false
}

// TestNetns6Decline: a DECLINE from the client's link, right after a real
// client (dhclient -6) bound the address: the agent, within its decline
// window, puts the address on probation in the MAC's name, counts and
// logs it and calls the decline hook (an Event in API-server mode), and
// the client, started again, is answered NoAddrsAvail.
//
// The DECLINE itself is built here (with the client's DUID and IAID, to
// the agent's DUID, from the client's link-local address and port 546):
// neither real client here sends one. dhclient 4.4.3 has no DECLINE, and
// dhcpcd 9.4.1, which declines an address whose duplicate address
// detection failed, never sees it fail: the kernel keeps a failed address
// flagged "dadfailed tentative" (one with finite lifetimes it deletes),
// and dhcpcd waits for "tentative" to clear (measured here).
func TestNetns6Decline(t *testing.T) {
	const mac = "52:54:00:aa:00:09"
	addr := netip.MustParseAddr("2001:db8:30::9")
	var mu sync.Mutex
	var declines []Decline
	l := newLab6(t, mac, map[string]string{addr.String(): mac}, WithDeclineHook(func(d Decline) {
		mu.Lock()
		declines = append(declines, d)
		mu.Unlock()
	}))
	ll := netnstest.LinkLocal(t, l.p.ClientNS, l.p.ClientIf)
	c := netnstest.StartClient6(t, netnstest.Dhclient, l.p, netnstest.Client6Config{})
	bound := c.Wait("a binding", 20*time.Second, isBound)
	checkBound(t, l, bound, addr.String())
	c.Stop() // it holds port 546

	clientID, err := hex.DecodeString(bound.ClientID)
	if err != nil {
		t.Fatal(err)
	}
	iaid, err := hex.DecodeString(strings.ReplaceAll(bound.Env["new_iaid"], ":", ""))
	if err != nil || len(iaid) != 4 {
		t.Fatalf("dhclient's IAID %q: %v", bound.Env["new_iaid"], err)
	}
	decline := dhcp6wire.AppendMessage(nil, &dhcp6wire.Message{
		Type: dhcp6wire.Decline, TransactionID: [3]byte{1, 2, 3}, ClientID: clientID, ServerID: l.a.ServerDUID(),
		IANA:           []dhcp6wire.IANA{{IAID: binary.BigEndian.Uint32(iaid), Addrs: []dhcp6wire.IAAddr{{Addr: addr}}}},
		HasElapsedTime: true,
	})
	if err := netnstest.In(l.p.ClientNS, func() error {
		conn, err := net.ListenUDP("udp6", &net.UDPAddr{IP: ll.AsSlice(), Port: ClientPort6, Zone: l.p.ClientIf})
		if err != nil {
			return err
		}
		defer conn.Close()
		_, err = conn.WriteToUDPAddrPort(decline, netip.MustParseAddrPort("[ff02::1:2%"+l.p.ClientIf+"]:547"))
		return err
	}); err != nil {
		t.Fatalf("send the DECLINE: %v", err)
	}
	waitFor(t, "the DECLINE", func() bool { return l.a.Stats6(time.Now()).Declines == 1 })
	if _, held := l.a.Probation().Holds(addr, time.Now()); !held {
		t.Errorf("%s is not on probation after the DECLINE", addr)
	}
	mu.Lock()
	if len(declines) != 1 || declines[0].MAC != mac || declines[0].Addr != addr || declines[0].Pool != "default/lab" {
		t.Errorf("decline hook got %+v, want one of %s by %s", declines, addr, mac)
	}
	mu.Unlock()
	if !strings.Contains(l.logs.String(), `"DHCPv6 DECLINE: address on probation" pool="default/lab" mac="52:54:00:aa:00:09"`) {
		t.Errorf("the agent did not log the DECLINE")
	}

	netnstest.IP(t, "-n", l.p.ClientNS, "-6", "addr", "flush", "dev", l.p.ClientIf, "scope", "global")
	before := len(l.tap.replies())
	c = netnstest.StartClient6(t, netnstest.Dhclient, l.p, netnstest.Client6Config{})
	waitFor(t, "the next answer", func() bool { return len(l.tap.replies()) > before })
	if r := l.tap.replies()[before]; r.typ != dhcp6wire.Advertise || !slices.Equal(r.status, []dhcp6wire.StatusCode{dhcp6wire.NoAddrsAvail}) {
		t.Errorf("after the decline the client got %v %v, want ADVERTISE NoAddrsAvail", r.typ, r.status)
	}
}

// TestNetns6DualStack: one agent, one dual-stack pool file, one veth: a
// DHCPv4 client (udhcpc) and a DHCPv6 client (dhclient -6) on the same
// interface each get the MAC's address of their family.
func TestNetns6DualStack(t *testing.T) {
	const mac = "52:54:00:aa:00:01" // labAllocated's 10.77.0.10
	l := newLab6(t, mac, map[string]string{"2001:db8:30::a": mac})
	netnstest.LinkLocal(t, l.p.ClientNS, l.p.ClientIf)
	c6 := netnstest.StartClient6(t, netnstest.Dhclient, l.p, netnstest.Client6Config{})
	netnstest.RequireTool(t, "udhcpc", "udhcpc")
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n[ \"$1\" = bound ] && echo \"$ip\" > "+filepath.Join(dir, "ip")+"\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ip", "netns", "exec", l.p.ClientNS, "udhcpc", "-f", "-q", "-n", "-i", l.p.ClientIf,
		"-s", script, "-t", "10", "-T", "1").CombinedOutput()
	if err != nil {
		t.Fatalf("udhcpc: %v\n%s", err, out)
	}
	ip4, _ := os.ReadFile(filepath.Join(dir, "ip"))
	checkBound(t, l, c6.Wait("a DHCPv6 binding", 20*time.Second, isBound), "2001:db8:30::a")
	if got := strings.TrimSpace(string(ip4)); got != "10.77.0.10" {
		t.Errorf("udhcpc bound %q, want 10.77.0.10", got)
	}
}

// TestNetns6Relayed: a relay's RELAY-FORW, unicast to the agent's global
// address on port 547, reaches the unicast UDP socket (and only it), and
// the agent answers inside a RELAY-REPL to the relay: the client, with a
// DUID-UUID, is found by the client link-layer address option (RFC 6939)
// the relay added.
func TestNetns6Relayed(t *testing.T) {
	const mac = "52:54:00:aa:00:05"
	l := newLab6(t, "52:54:00:ff:00:01", map[string]string{"2001:db8:30::5": mac}) // the relay's own MAC has no lease
	netnstest.IP(t, "-n", l.p.ClientNS, "addr", "add", "2001:db8:30::99/64", "dev", l.p.ClientIf, "nodad")
	netnstest.LinkLocal(t, l.p.ClientNS, l.p.ClientIf)
	var req dhcp6wire.Packet
	req.Relays = []dhcp6wire.Relay{{Type: dhcp6wire.RelayForw, LinkAddr: netip.MustParseAddr("2001:db8:30::99"),
		PeerAddr: netip.MustParseAddr("fe80::1234"), InterfaceID: []byte("port7"),
		LinkLayerType: dhcp6wire.HWTypeEthernet, LinkLayerAddr: []byte{0x52, 0x54, 0, 0xaa, 0, 5}}}
	req.Msg = dhcp6wire.Message{Type: dhcp6wire.Solicit, TransactionID: [3]byte{4, 5, 6},
		ClientID: []byte{0, 4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		IANA:     []dhcp6wire.IANA{{IAID: 7}}, HasElapsedTime: true}
	var reply []byte
	if err := netnstest.In(l.p.ClientNS, func() error {
		conn, err := net.ListenUDP("udp6", &net.UDPAddr{IP: net.ParseIP("2001:db8:30::99"), Port: ServerPort6})
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.WriteToUDPAddrPort(dhcp6wire.Append(nil, &req), netip.MustParseAddrPort("[2001:db8:30::1]:547")); err != nil {
			return err
		}
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		b := make([]byte, 1500)
		n, _, err := conn.ReadFromUDPAddrPort(b)
		reply = b[:n]
		return err
	}); err != nil {
		t.Fatalf("relay: %v", err)
	}
	var got dhcp6wire.Packet
	if err := dhcp6wire.Decode(&got, reply); err != nil {
		t.Fatal(err)
	}
	if len(got.Relays) != 1 || got.Relays[0].Type != dhcp6wire.RelayRepl || string(got.Relays[0].InterfaceID) != "port7" ||
		got.Msg.Type != dhcp6wire.Advertise || len(got.Msg.IANA) != 1 || len(got.Msg.IANA[0].Addrs) != 1 ||
		got.Msg.IANA[0].Addrs[0].Addr != netip.MustParseAddr("2001:db8:30::5") {
		t.Errorf("the relay got %+v, want a RELAY-REPL (interface-id port7) around an ADVERTISE of 2001:db8:30::5", got)
	}
	if n := l.a.Stats6(time.Now()).Received; n != 1 {
		t.Errorf("the agent handled the relayed message %d times, want once", n)
	}
	// The agent logs a reply after it sent it.
	waitFor(t, "the agent to log that it found the client by the relay's link-layer address option", func() bool {
		return strings.Contains(l.logs.String(), `source="relay-link-layer"`)
	})
}
