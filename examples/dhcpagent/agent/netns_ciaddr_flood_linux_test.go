package agent

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4/nclient4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
)

// TestNetnsCiaddrFlood is DHCPv4's stall: a host broadcasts 1,000
// REQUESTs a second from MACs without a lease, each naming as ciaddr an
// address of the link that no host has; each NAK goes to that ciaddr and
// waits for ARP in the agent's send buffer (before issue 36 a full buffer
// blocked the agent). Meanwhile dhclient renews its 8 s lease (T1 4 s).
// The buffer fills past half (what the gate keeps for other replies),
// the NAKs to made-up addresses are then broadcast, and each renewal is
// answered at the first DHCPREQUEST: the client's address is resolved
// (it asked ARP for the server before it unicast its REQUEST), so its
// ACK goes out whatever the buffer holds.
func TestNetnsCiaddrFlood(t *testing.T) {
	c := lifecycleClients[1]
	if c.Name != "dhclient" {
		t.Fatalf("lifecycleClients[1] is %s", c.Name)
	}
	pool := labtest.Pool(dhcp4test.LabAllocated())
	pool.Spec.LeaseTime = poolsource.Duration(lifecycleLease)
	h := startFloodHost(t, c, pool)
	h.run(nil)
	if b := h.next("bound", 30*time.Second); b.addr != dhcp4test.AddrA.String() {
		t.Fatalf("bound %s, want %s", b.addr, dhcp4test.AddrA)
	}
	var conn net.PacketConn
	if err := netnstest.In(h.pair.ClientNS, func() (err error) {
		conn, err = nclient4.NewRawUDPConn(h.pair.ClientIf, dhcp4.ClientPort)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	wires := make([][]byte, 100)
	for i := range wires { // 10.77.0.150 to .249: no host has them
		mac := fmt.Sprintf("02:00:00:00:66:%02x", i)
		wires[i] = dhcp4test.Renewing(t, mac, netip.AddrFrom4([4]byte{10, 77, 0, byte(150 + i)})).ToBytes()
	}
	dst := &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ServerPort}

	var peak, capacity atomic.Int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() { // how full the agent's send buffer gets
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if q, c, err := h.server.Backlog(); err == nil {
				peak.Store(max(peak.Load(), int64(q)))
				capacity.Store(int64(c))
			}
		}
	}()
	// dhclient prints "bound to" after its script ran: count from there.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(h.output.String(), "bound to 10.77.0.10"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("dhclient did not print its binding; output:\n%s", h.output)
		}
	}
	outBefore := len(h.output.String())
	const rate, period = 1000, 10 * time.Second
	start := time.Now()
	sent := 0
	for ; time.Since(start) < period; sent++ {
		if d := time.Until(start.Add(time.Duration(sent) * time.Second / rate)); d > 0 {
			time.Sleep(d)
		}
		if _, err := conn.WriteTo(wires[sent%len(wires)], dst); err != nil {
			t.Fatalf("REQUEST %d: %v", sent, err)
		}
	}
	close(stop)
	<-watched

	out := h.output.String()[outBefore:]
	tries := renewalTries(out, "10.77.0.10")
	st := h.agent.Stats(time.Now())
	t.Logf("%d REQUESTs with made-up ciaddrs in %v; send buffer peak %d of %d; renewals %d, DHCPREQUESTs each %v; agent NAKs %d, dropped %d, send errors %d",
		sent, time.Since(start).Round(time.Millisecond), peak.Load(), capacity.Load(), len(tries), tries, st.Naks, st.SendDropped, st.SendErrors)
	// The buffer sits at the gate (half), just over it after each NAK let
	// in; sampled every 5 ms, the peak may fall a few NAKs short of it.
	if peak.Load() < capacity.Load()/2-4096 {
		t.Errorf("the send buffer peaked at %d of %d: the flood never filled it to the gate, the test proves nothing", peak.Load(), capacity.Load())
	}
	if len(tries) < 2 {
		t.Errorf("%d renewals during the flood, want at least 2; dhclient output:\n%s", len(tries), out)
	}
	for i, k := range tries {
		if k != 1 {
			t.Errorf("renewal %d took %d DHCPREQUESTs, want 1", i, k)
		}
	}
	if st.Naks < uint64(sent)*9/10 {
		t.Errorf("%d NAKs for %d REQUESTs: the agent did not keep up", st.Naks, sent)
	}
}
