package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"

	"context"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/dhcpv4/nclient4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
)

// TestNetnsDecline checks that a genuine decline still takes the address
// out of service (RFC 2131 section 4.3.3), with the real clients that
// probe what they are given: busybox udhcpc (-a) and dhcpcd probe the
// address they were just ACKed with ARP and decline it when another host
// answers for it (here the agent's own namespace, which also holds the
// address, as a stale host does). The decline comes right after the ACK,
// so the agent accepts it; during the probation the client's DISCOVERs
// get no OFFER of the address and nothing ACKs it (the client never asks
// to keep it, so nothing lifts the probation); once the conflict is gone
// and the probation over, the client binds the address. (ISC dhclient
// does not probe: TestNetnsSpoofedDecline runs it.)
func TestNetnsDecline(t *testing.T) {
	netnstest.Require(t)
	t.Parallel() // minutes of waiting for timers, not of CPU: overlap them
	for _, c := range lifecycleClients {
		if c.Name == "dhclient" {
			continue // it does not probe, so it never declines
		}
		t.Run(c.Name, func(t *testing.T) {
			requireClient(t, c.Run("", "", "")[0])
			t.Parallel()
			// dhcpcd waits 10s after a decline before it discovers again.
			probation := 6 * time.Second
			if c.Name == "dhcpcd" {
				probation = 15 * time.Second
			}
			h := startLifecycle(t, c, lifecyclePool(dhcp4test.LabAllocated()), WithProbation(probation))
			netnstest.IP(t, "-n", h.pair.ServerNS, "addr", "add", dhcp4test.AddrA.String()+"/32", "dev", h.pair.ServerIf)
			h.run(func(args []string) []string {
				if c.Name == "udhcpc" {
					return append(args, "-a")
				}
				return slices.DeleteFunc(args, func(a string) bool { return a == "--noarp" })
			})
			waitDeclines(t, h.agent, 1)
			declined := time.Now()
			netnstest.IP(t, "-n", h.pair.ServerNS, "addr", "del", dhcp4test.AddrA.String()+"/32", "dev", h.pair.ServerIf)
			bound := h.next("bound", probation+30*time.Second)
			if bound.addr != dhcp4test.AddrA.String() {
				t.Fatalf("bound %s after the probation, want %s", bound.addr, dhcp4test.AddrA)
			}
			until, ok := h.agent.Probation().Holds(dhcp4test.AddrA, declined)
			if !ok {
				t.Fatalf("%s not on probation right after the decline", dhcp4test.AddrA)
			}
			for _, typ := range []dhcpv4.MessageType{dhcpv4.MessageTypeOffer, dhcpv4.MessageTypeAck} {
				for _, s := range h.sentSince(declined, typ) {
					if s.at.Before(until) && s.yiaddr == dhcp4test.AddrA.String() {
						t.Errorf("%s of %s at %s, during the probation (until %s)", typ, dhcp4test.AddrA, s.at.Format("15:04:05.000"), until.Format("15:04:05.000"))
					}
				}
			}
			if !bound.at.After(until) {
				t.Errorf("bound at %s, before the probation ended at %s", bound.at.Format("15:04:05.000"), until.Format("15:04:05.000"))
			}
			// From the decline itself, not from when waitDeclines saw it: on a
			// loaded machine the poll can lag by seconds.
			discovers := h.received(dhcpv4.MessageTypeDiscover, until.Add(-probation), until)
			if len(discovers) == 0 {
				t.Errorf("no DISCOVER during the probation: the test shows nothing")
			}
			if s := h.agent.Stats(time.Now()); s.Declines < 1 || s.Lifts != 0 {
				t.Errorf("%d declines and %d lifts counted, want at least 1 and 0", s.Declines, s.Lifts)
			}
			if log := h.logs.String(); !strings.Contains(log, `"DECLINE: address on probation" pool="default/lab" mac="52:54:00:aa:00:01" addr="10.77.0.10"`) {
				t.Errorf("the decline is not logged with MAC and address")
			}
			var sinceACK time.Duration
			if acks := h.sentSince(time.Time{}, dhcpv4.MessageTypeAck); len(acks) > 0 {
				sinceACK = until.Add(-probation).Sub(acks[0].at)
			}
			t.Logf("%s: declined %v after its ACK, %d DISCOVERs unanswered during the %v probation, bound %s %v after it ended",
				c.Name, sinceACK.Round(time.Millisecond), len(discovers), probation, bound.addr, bound.at.Sub(until).Round(time.Millisecond))
		})
	}
}

// TestNetnsSpoofedDecline checks that a DECLINE sent in a bound client's
// name by another host (from the client's segment, with the client's MAC
// and address, as anyone who saw its broadcast REQUEST can) does not take
// the client off the network, whenever it is sent: its next renewal is
// ACKed, with no NAK in between. Right after the client's ACK the agent
// accepts the DECLINE (a genuine one comes then) and the renewal, which a
// genuine decliner never sends, lifts the probation; later, outside the
// decline window, the agent refuses it. The clients: busybox udhcpc on a
// 20 s lease (the lease of the reported attack), ISC dhclient on an 8 s
// one, and dhclient restarted on its lease file after the DECLINE
// (INIT-REBOOT: it asks to keep the address, which also disproves it).
func TestNetnsSpoofedDecline(t *testing.T) {
	netnstest.Require(t)
	t.Parallel()
	tests := []struct {
		name   string
		client string
		lease  time.Duration
		window time.Duration // the agent's decline window; 0: the default
		// when: "ack" right after the agent's ACK; "mid" halfway to the
		// client's first renewal; "restart": right after the ACK, then the
		// client is restarted on its lease file.
		when      string
		wantLifts uint64 // 1: accepted and lifted by the renewal; 0: refused
	}{
		{"udhcpc, right after its ACK", "udhcpc", 20 * time.Second, 0, "ack", 1},
		{"udhcpc, mid-lease, within the window", "udhcpc", 20 * time.Second, 0, "mid", 1},
		{"udhcpc, mid-lease, after the window", "udhcpc", 20 * time.Second, 3 * time.Second, "mid", 0},
		{"dhclient, right after its ACK", "dhclient", lifecycleLease, 0, "ack", 1},
		{"dhclient restarted on its lease", "dhclient", lifecycleLease, 0, "restart", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := slices.IndexFunc(lifecycleClients, func(c netnstest.Client4) bool { return c.Name == tt.client })
			c := lifecycleClients[i]
			requireClient(t, c.Run("", "", "")[0])
			t.Parallel()
			pool := labtest.Pool(dhcp4test.LabAllocated())
			pool.Spec.LeaseTime = poolsource.Duration(tt.lease)
			opts := []Option{}
			if tt.window > 0 {
				opts = append(opts, WithDeclineWindow(tt.window))
			}
			h := startLifecycle(t, c, pool, opts...)
			start := time.Now()
			h.run(nil)
			// The ACK that binds the client, as the spoofer sees it go by.
			deadline := time.Now().Add(30 * time.Second)
			for len(h.sentSince(start, dhcpv4.MessageTypeAck)) == 0 {
				if time.Now().After(deadline) {
					t.Fatal("no ACK within 30s")
				}
				time.Sleep(time.Millisecond)
			}
			acked := h.sentSince(start, dhcpv4.MessageTypeAck)[0].at
			bound := h.next("bound", 30*time.Second)
			if bound.addr != dhcp4test.AddrA.String() {
				t.Fatalf("bound %s, want %s", bound.addr, dhcp4test.AddrA)
			}
			if tt.when == "mid" {
				time.Sleep(time.Until(acked.Add(tt.lease / 4))) // T1 is half the lease
			}
			spoofed := time.Now()
			sendDecline(t, h.pair, dhcp4test.AddrA)
			if tt.when == "restart" {
				h.stop() // the address stays configured, the lease file written
				h.run(nil)
			}
			// The renewal (or the restarted client's REBOOT) after the spoof.
			kind := "renew"
			if tt.when == "restart" {
				kind = "bound"
			}
			renewed := h.next(kind, 2*tt.lease)
			if renewed.addr != dhcp4test.AddrA.String() {
				t.Errorf("%s %s after the spoofed DECLINE, want %s", kind, renewed.addr, dhcp4test.AddrA)
			}
			if naks := h.sentSince(spoofed, dhcpv4.MessageTypeNak); len(naks) > 0 {
				t.Errorf("NAKs after the spoofed DECLINE: %v", naks)
			}
			// The client's first REQUEST after the spoof is ACKed.
			reqs := h.received(dhcpv4.MessageTypeRequest, spoofed, renewed.at)
			if len(reqs) == 0 {
				t.Fatalf("no REQUEST between the spoof and the %s", kind)
			}
			first := reqs[0].msg.TransactionID
			var answered bool
			for _, s := range h.sentSince(spoofed, dhcpv4.MessageTypeAck) {
				if s.msg.TransactionID == first && s.yiaddr == dhcp4test.AddrA.String() {
					answered = true
				}
			}
			if !answered {
				t.Errorf("the first REQUEST after the spoof (xid %s) got no ACK; sent %v", first, h.sends.all())
			}
			st := h.agent.Stats(time.Now())
			if st.Declines != tt.wantLifts || st.Lifts != tt.wantLifts {
				t.Errorf("%d DECLINEs accepted and %d lifted, want %d and %d", st.Declines, st.Lifts, tt.wantLifts, tt.wantLifts)
			}
			if _, held := h.agent.Probation().Holds(dhcp4test.AddrA, time.Now()); held {
				t.Errorf("%s still on probation after the client asked to keep it", dhcp4test.AddrA)
			}
			t.Logf("%s: spoofed DECLINE %v after the ACK (%d accepted), client %s %s %v later on its first REQUEST",
				tt.name, spoofed.Sub(acked).Round(time.Millisecond), st.Declines, kind, renewed.addr,
				renewed.at.Sub(spoofed).Round(time.Millisecond))
		})
	}
}

// waitDeclines waits up to 30s for a to have accepted n DECLINEs.
func waitDeclines(t *testing.T, a *Agent, n uint64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for a.Stats(time.Now()).Declines < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d DECLINEs accepted within 30s, want %d", a.Stats(time.Now()).Declines, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sendDecline sends, from the client's namespace, the DECLINE of addr
// that a client of macA sends when it finds the address in use.
func sendDecline(t *testing.T, p *netnstest.Pair, addr netip.Addr) {
	t.Helper()
	var conn net.PacketConn
	if err := netnstest.In(p.ClientNS, func() (err error) {
		conn, err = nclient4.NewRawUDPConn(p.ClientIf, dhcp4.ClientPort)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	m, err := dhcpv4.New(dhcpv4.WithHwAddr(dhcp4test.HW(t, dhcp4test.MACA)), dhcpv4.WithMessageType(dhcpv4.MessageTypeDecline),
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(dhcp4test.NetIP(dhcp4test.ServerIP))),
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(dhcp4test.NetIP(addr))),
		dhcpv4.WithOption(dhcpv4.OptMessage("address in use")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.WriteTo(m.ToBytes(), &net.UDPAddr{IP: net.IPv4bcast, Port: dhcp4.ServerPort}); err != nil {
		t.Fatal(err)
	}
}

// TestNetnsInform checks that INFORM is answered over the wire: the
// library's client, on a raw socket in the client's namespace, informs
// from an address it configured itself and that no lease holds, and gets
// the pool's options without a lease time, at that address. (None of
// udhcpc and dhclient sends INFORM; dhcpcd 9.4.1 --inform did not start
// in a network namespace here: its privilege-separation controller fails.)
func TestNetnsInform(t *testing.T) {
	netnstest.Require(t)
	t.Parallel() // minutes of waiting for timers, not of CPU: overlap them
	t.Run("nclient4", func(t *testing.T) {
		t.Parallel()
		h := startLifecycle(t, lifecycleClients[0], lifecyclePool(dhcp4test.LabAllocated()))
		static := "10.77.0.250"
		netnstest.IP(t, "-n", h.pair.ClientNS, "addr", "add", static+"/24", "dev", h.pair.ClientIf)
		var c *nclient4.Client
		if err := netnstest.In(h.pair.ClientNS, func() (err error) {
			c, err = nclient4.New(h.pair.ClientIf, nclient4.WithTimeout(time.Second), nclient4.WithRetry(5))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		ack, err := c.Inform(ctx, net.ParseIP(static))
		if err != nil {
			t.Fatalf("INFORM: %v", err)
		}
		want := dhcp4test.InformView(dhcp4test.MACA, static)
		want.XID = ack.TransactionID.String()
		got := dhcp4test.ViewOf(t, ack)
		delete(got.Options, "61 client id") // nclient4 sends one; echoed
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("ACK to INFORM (-want +got):\n%s", d)
		}
		// The send log records a reply once the write returned, which may
		// be after the client read it.
		deadline := time.Now().Add(5 * time.Second)
		for len(h.sentSince(time.Time{}, dhcpv4.MessageTypeAck)) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		// The client may retry before it hears the first ACK; every ACK
		// goes to ciaddr.
		acks := h.sentSince(time.Time{}, dhcpv4.MessageTypeAck)
		if len(acks) == 0 {
			t.Errorf("no ACK sent")
		}
		for _, s := range acks {
			if s.to != static+":68" {
				t.Errorf("ACK sent to %s, want %s:68", s.to, static)
			}
		}
	})
}
