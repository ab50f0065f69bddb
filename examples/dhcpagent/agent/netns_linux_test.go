package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"

	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/dhcpv4/nclient4"
	"golang.org/x/sys/unix"
)

// netnsPair is two network namespaces joined by a veth pair: the agent's
// side holds the server address, the client's side starts unconfigured.
type netnsPair struct {
	agentNS, clientNS string
	agentIf, clientIf string
}

// requireNetns fails the test where it cannot run. It skips only on a
// developer machine (CI unset) without root; in CI it must run.
func requireNetns(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "" {
			t.Skip("needs root to create network namespaces; CI runs it as root (with CI set, this is a failure)")
		}
		t.Fatal("needs root to create network namespaces and veth pairs, and CI is set: run the tests as root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatalf("needs iproute2's ip command to create network namespaces: %v", err)
	}
}

func ip(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// newNetnsPair creates the namespaces (unique names per run) and the veth
// pair, with clientMAC on the client's end and serverCIDR on the agent's;
// t.Cleanup deletes them.
func newNetnsPair(t *testing.T, clientMAC, serverCIDR string) *netnsPair {
	t.Helper()
	b := make([]byte, 3)
	rand.Read(b)
	id := hex.EncodeToString(b)
	p := &netnsPair{
		agentNS: "vmnetkit-agent-" + id, clientNS: "vmnetkit-client-" + id,
		agentIf: "vka" + id, clientIf: "vkc" + id, // 9 bytes: IFNAMSIZ is 16
	}
	for _, ns := range []string{p.agentNS, p.clientNS} {
		if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
			t.Fatalf("cannot create network namespace %s (root, and a kernel with network namespaces, are needed): %v\n%s", ns, err, out)
		}
		t.Cleanup(func() {
			if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
				t.Errorf("ip netns del %s: %v\n%s", ns, err, out)
			}
		})
	}
	ip(t, "link", "add", p.agentIf, "netns", p.agentNS, "type", "veth",
		"peer", "name", p.clientIf, "netns", p.clientNS, "address", clientMAC)
	ip(t, "-n", p.agentNS, "addr", "add", serverCIDR, "dev", p.agentIf)
	ip(t, "-n", p.agentNS, "link", "set", p.agentIf, "up")
	ip(t, "-n", p.clientNS, "link", "set", p.clientIf, "up")
	return p
}

// inNetns runs fn on an OS thread moved into network namespace ns. Sockets
// fn opens belong to ns for good, whichever thread uses them later. The
// thread is never unlocked, so the runtime discards it when fn returns
// rather than reuse it in the wrong namespace.
func inNetns(ns string, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open(filepath.Join("/var/run/netns", ns))
		if err != nil {
			errc <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns %s: %w", ns, err)
			return
		}
		errc <- fn()
	}()
	return <-errc
}

// clientEvent is one step of the DHCP client's life.
type clientEvent struct {
	kind string // "bound" (after DISCOVER..ACK), "renewed", "nak", "error"
	addr netip.Addr
	ack  *dhcpv4.DHCPv4 // the ACK or NAK
	err  error
}

func (e clientEvent) String() string {
	switch {
	case e.err != nil:
		return e.kind + " " + e.err.Error()
	case e.kind == "nak":
		return fmt.Sprintf("nak %q", e.ack.Message())
	}
	return e.kind + " " + e.addr.String()
}

// runClient is a minimal DHCP client on nclient4: INIT (DISCOVER, OFFER,
// REQUEST, ACK) then configure the address, then RENEWING every interval;
// a NAK removes the address and goes back to INIT (RFC 2131, 4.4). It
// configures the address on the interface as a real client does, so the
// agent's unicast ACKs to ciaddr are answered by ARP.
func runClient(ctx context.Context, c *nclient4.Client, p *netnsPair, interval time.Duration, events chan<- clientEvent) {
	send := func(e clientEvent) {
		select {
		case events <- e:
		case <-ctx.Done():
		}
	}
	setAddr := func(a netip.Addr, bits int) error {
		if out, err := exec.Command("ip", "-n", p.clientNS, "addr", "flush", "dev", p.clientIf).CombinedOutput(); err != nil {
			return fmt.Errorf("ip addr flush: %v: %s", err, out)
		}
		if !a.IsValid() {
			return nil
		}
		cidr := netip.PrefixFrom(a, bits).String()
		if out, err := exec.Command("ip", "-n", p.clientNS, "addr", "add", cidr, "dev", p.clientIf).CombinedOutput(); err != nil {
			return fmt.Errorf("ip addr add %s: %v: %s", cidr, err, out)
		}
		return nil
	}
	var lease *nclient4.Lease
	for ctx.Err() == nil {
		if lease == nil {
			l, err := c.Request(ctx)
			if err != nil {
				send(clientEvent{kind: "error", err: fmt.Errorf("DISCOVER/REQUEST: %w", err)})
				continue
			}
			addr, _ := netip.AddrFromSlice(l.ACK.YourIPAddr.To4())
			bits, _ := l.ACK.SubnetMask().Size()
			if err := setAddr(addr, bits); err != nil {
				send(clientEvent{kind: "error", err: err})
				return
			}
			lease = l
			send(clientEvent{kind: "bound", addr: addr, ack: l.ACK})
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
		l, err := c.Renew(ctx, lease)
		var nak *nclient4.ErrNak
		switch {
		case errors.As(err, &nak):
			if err := setAddr(netip.Addr{}, 0); err != nil {
				send(clientEvent{kind: "error", err: err})
				return
			}
			lease = nil
			send(clientEvent{kind: "nak", ack: nak.Nak})
		case err != nil:
			send(clientEvent{kind: "error", err: fmt.Errorf("renew: %w", err)})
		default:
			addr, _ := netip.AddrFromSlice(l.ACK.YourIPAddr.To4())
			lease = l
			send(clientEvent{kind: "renewed", addr: addr, ack: l.ACK})
		}
	}
}

// TestNetns runs the agent end to end: the agent in one network namespace
// on a veth, a real DHCP client (nclient4 on a raw socket) in another. The
// client obtains its lease's address and renews it; then the pool file is
// rewritten with the MAC at another address while the client keeps
// renewing. The agent picks the file up, NAKs the next renewal of the old
// address (RFC 2131 4.3.2: the client's notion of its address is wrong),
// and the client, back in INIT, is offered and acknowledged the new one.
func TestNetns(t *testing.T) {
	requireNetns(t)
	const clientMAC = "52:54:00:aa:00:01" // macA
	p := newNetnsPair(t, clientMAC, "10.77.0.2/24")

	path := filepath.Join(t.TempDir(), "pool.json")
	writePoolFile(t, path, labPool(labAllocated()))
	logs := &logBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent log:\n%s", logs)
		}
	})
	a := New(nil, WithLogger(newTestLogger(logs)))
	file := poolsource.NewFile(path, a.Accept, newTestLogger(logs))
	if err := file.Load(); err != nil {
		t.Fatal(err)
	}

	conn := listenIn(t, p.agentNS, p.agentIf)
	ctx, cancel := context.WithCancel(context.Background())
	served, watched := make(chan error, 1), make(chan error, 1)
	go func() { served <- a.Serve(ctx, conn) }()
	go func() { watched <- file.Watch(ctx, 20*time.Millisecond) }()

	var c *nclient4.Client
	if err := inNetns(p.clientNS, func() (err error) {
		c, err = nclient4.New(p.clientIf, nclient4.WithTimeout(500*time.Millisecond), nclient4.WithRetry(4))
		return err
	}); err != nil {
		t.Fatalf("client socket in %s: %v", p.clientNS, err)
	}
	events := make(chan clientEvent)
	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		runClient(ctx, c, p, 100*time.Millisecond, events)
	}()
	t.Cleanup(func() {
		cancel()
		<-clientDone
		c.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		<-watched
	})

	var history []string
	// expect reads client events until one of kind and address arrives.
	expect := func(kind string, addr netip.Addr) clientEvent {
		t.Helper()
		deadline := time.After(15 * time.Second)
		for {
			select {
			case e := <-events:
				history = append(history, e.String())
				if e.kind == kind && e.addr == addr {
					return e
				}
				if e.kind == "nak" && kind != "nak" {
					t.Fatalf("unexpected NAK %q; client history: %v", e.ack.Message(), history)
				}
			case <-deadline:
				t.Fatalf("no %s %s within 15s; client history: %v", kind, addr, history)
			}
		}
	}

	start := time.Now()
	bound := expect("bound", addrA)
	want := ackView(clientMAC, "0.0.0.0", addrA)
	want.XID = bound.ack.TransactionID.String()
	if diff := cmp.Diff(want, viewOf(t, bound.ack)); diff != "" {
		t.Errorf("ACK over the veth (-want +got):\n%s", diff)
	}
	t.Logf("bound %s after %v", addrA, time.Since(start).Round(time.Millisecond))
	expect("renewed", addrA)

	// Move the MAC while the client keeps renewing.
	moved := time.Now()
	writePoolFile(t, path, labPool(movedAllocated()))
	nak := expect("nak", netip.Addr{})
	if got, want := nak.ack.Message(), "10.77.0.10 is not leased to 52:54:00:aa:00:01"; got != want {
		t.Errorf("NAK message %q, want %q", got, want)
	}
	rebound := expect("bound", addrA2)
	want = ackView(clientMAC, "0.0.0.0", addrA2)
	want.XID = rebound.ack.TransactionID.String()
	if diff := cmp.Diff(want, viewOf(t, rebound.ack)); diff != "" {
		t.Errorf("ACK of the new address (-want +got):\n%s", diff)
	}
	renewed := expect("renewed", addrA2)
	want = ackView(clientMAC, "10.77.0.20", addrA2)
	want.XID = renewed.ack.TransactionID.String()
	if diff := cmp.Diff(want, viewOf(t, renewed.ack)); diff != "" {
		t.Errorf("ACK of the renewal of the new address (-want +got):\n%s", diff)
	}
	t.Logf("moved to %s and renewed %v after the pool file changed; client history: %v",
		addrA2, time.Since(moved).Round(time.Millisecond), history)

	if log := logs.String(); !strings.Contains(log, `"update" mac="52:54:00:aa:00:01" from="10.77.0.10" to="10.77.0.20"`) {
		t.Errorf("agent did not log the update of the moved MAC; log:\n%s", log)
	}
}

// listenIn is the agent's production socket (Listen) on iface port 67
// inside the namespace ns.
func listenIn(t *testing.T, ns, iface string) *udpsocket.Socket {
	t.Helper()
	var s *udpsocket.Socket
	if err := inNetns(ns, func() (err error) {
		s, err = udpsocket.Listen(iface, netip.AddrPortFrom(netip.IPv4Unspecified(), dhcp4.ServerPort))
		return err
	}); err != nil {
		t.Fatalf("agent socket in %s: %v", ns, err)
	}
	return s
}

// serveIn runs a.Serve on conn until the test ends.
func serveIn(t *testing.T, a *Agent, conn Conn) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, conn) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// tapConn is a Conn that shows each DHCPv4 message it reads or sends to
// a test, decoded from a copy, as Serve sees it.
type tapConn struct {
	Conn
	read func(m *dhcpv4.DHCPv4)                                 // nil: not watched
	sent func(m *dhcpv4.DHCPv4, wire []byte, to netip.AddrPort) // nil: not watched
}

func (c *tapConn) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	n, from, err := c.Conn.ReadFromUDPAddrPort(b)
	if err == nil && c.read != nil {
		if m, perr := dhcpv4.FromBytes(slices.Clone(b[:n])); perr == nil { // Serve reuses b
			c.read(m)
		}
	}
	return n, from, err
}

func (c *tapConn) WriteToUDPAddrPort(b []byte, to netip.AddrPort) (int, error) {
	n, err := c.Conn.WriteToUDPAddrPort(b, to)
	if err == nil && c.sent != nil {
		wire := slices.Clone(b) // the agent reuses b
		if m, perr := dhcpv4.FromBytes(wire); perr == nil {
			c.sent(m, wire, to)
		}
	}
	return n, err
}
