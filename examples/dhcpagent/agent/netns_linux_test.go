package agent

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/dhcpv4/nclient4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/pooltest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

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
func runClient(ctx context.Context, c *nclient4.Client, p *netnstest.Pair, interval time.Duration, events chan<- clientEvent) {
	send := func(e clientEvent) {
		select {
		case events <- e:
		case <-ctx.Done():
		}
	}
	setAddr := func(a netip.Addr, bits int) error {
		if out, err := exec.Command("ip", "-n", p.ClientNS, "addr", "flush", "dev", p.ClientIf).CombinedOutput(); err != nil {
			return fmt.Errorf("ip addr flush: %v: %s", err, out)
		}
		if !a.IsValid() {
			return nil
		}
		cidr := netip.PrefixFrom(a, bits).String()
		if out, err := exec.Command("ip", "-n", p.ClientNS, "addr", "add", cidr, "dev", p.ClientIf).CombinedOutput(); err != nil {
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
	netnstest.Require(t)
	const clientMAC = "52:54:00:aa:00:01" // macA
	p := netnstest.NewPair(t, clientMAC, "10.77.0.2/24")

	path := filepath.Join(t.TempDir(), "pool.json")
	pooltest.WriteFile(t, path, labtest.Pool(dhcp4test.LabAllocated()))
	logs := &logtest.Buffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent log:\n%s", logs)
		}
	})
	a := New(nil, WithLogger(logtest.Logger(logs, packetLevel)))
	file := poolsource.NewFile(path, poolsource.Loads(a.Apply), logtest.Logger(logs, packetLevel))
	if err := file.Load(); err != nil {
		t.Fatal(err)
	}

	conn := listenIn(t, p.ServerNS, p.ServerIf)
	ctx, cancel := context.WithCancel(context.Background())
	served, watched := make(chan error, 1), make(chan error, 1)
	go func() { served <- a.Serve(ctx, conn) }()
	go func() { watched <- file.Watch(ctx, 20*time.Millisecond) }()

	var c *nclient4.Client
	if err := netnstest.In(p.ClientNS, func() (err error) {
		c, err = nclient4.New(p.ClientIf, nclient4.WithTimeout(500*time.Millisecond), nclient4.WithRetry(4))
		return err
	}); err != nil {
		t.Fatalf("client socket in %s: %v", p.ClientNS, err)
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
	bound := expect("bound", dhcp4test.AddrA)
	want := dhcp4test.AckView(clientMAC, "0.0.0.0", dhcp4test.AddrA)
	want.XID = bound.ack.TransactionID.String()
	if diff := cmp.Diff(want, dhcp4test.ViewOf(t, bound.ack)); diff != "" {
		t.Errorf("ACK over the veth (-want +got):\n%s", diff)
	}
	t.Logf("bound %s after %v", dhcp4test.AddrA, time.Since(start).Round(time.Millisecond))
	expect("renewed", dhcp4test.AddrA)

	// Move the MAC while the client keeps renewing.
	moved := time.Now()
	pooltest.WriteFile(t, path, labtest.Pool(dhcp4test.MovedAllocated()))
	nak := expect("nak", netip.Addr{})
	if got, want := nak.ack.Message(), "10.77.0.10 is not leased to 52:54:00:aa:00:01"; got != want {
		t.Errorf("NAK message %q, want %q", got, want)
	}
	rebound := expect("bound", dhcp4test.AddrA2)
	want = dhcp4test.AckView(clientMAC, "0.0.0.0", dhcp4test.AddrA2)
	want.XID = rebound.ack.TransactionID.String()
	if diff := cmp.Diff(want, dhcp4test.ViewOf(t, rebound.ack)); diff != "" {
		t.Errorf("ACK of the new address (-want +got):\n%s", diff)
	}
	renewed := expect("renewed", dhcp4test.AddrA2)
	want = dhcp4test.AckView(clientMAC, "10.77.0.20", dhcp4test.AddrA2)
	want.XID = renewed.ack.TransactionID.String()
	if diff := cmp.Diff(want, dhcp4test.ViewOf(t, renewed.ack)); diff != "" {
		t.Errorf("ACK of the renewal of the new address (-want +got):\n%s", diff)
	}
	t.Logf("moved to %s and renewed %v after the pool file changed; client history: %v",
		dhcp4test.AddrA2, time.Since(moved).Round(time.Millisecond), history)

	if log := logs.String(); !strings.Contains(log, `"update" mac="52:54:00:aa:00:01" from="10.77.0.10" to="10.77.0.20"`) {
		t.Errorf("agent did not log the update of the moved MAC; log:\n%s", log)
	}
}
