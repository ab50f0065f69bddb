package agent

import (
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
)

// TestNetnsDecline checks that a declined address is not offered again
// during its probation, with real clients: busybox udhcpc (-a) and dhcpcd
// probe the offered address with ARP and decline it when another host
// answers for it (here the agent's own namespace, which also holds the
// address, as a stale host does); ISC dhclient does not probe, so a
// DECLINE is sent for it from its namespace (with the library's raw
// socket), and dhclient is started again on its lease file. During the
// probation the client's DISCOVERs get no OFFER of the address (and
// dhclient's INIT-REBOOT a NAK); once the conflict is gone and the
// probation over, the client binds the address.
func TestNetnsDecline(t *testing.T) {
	requireNetns(t)
	t.Parallel() // minutes of waiting for timers, not of CPU: overlap them
	for _, c := range lifecycleClients {
		t.Run(c.name, func(t *testing.T) {
			requireClient(t, c.args("", "", "")[0])
			t.Parallel()
			// dhcpcd waits 10s after a decline before it discovers again.
			probation := 6 * time.Second
			if c.name == "dhcpcd" {
				probation = 15 * time.Second
			}
			h := startLifecycle(t, c, lifecyclePool(labAllocated()), WithProbation(probation))
			var declined time.Time
			switch c.name {
			case "dhclient":
				h.run(nil)
				if b := h.next("bound", 30*time.Second); b.addr != addrA.String() {
					t.Fatalf("bound %s, want %s", b.addr, addrA)
				}
				h.stop() // the address stays configured, the lease file written
				declined = time.Now()
				sendDecline(t, h.pair, addrA)
				waitDeclines(t, h.agent, 1)
				h.run(nil)
			default:
				ip(t, "-n", h.pair.agentNS, "addr", "add", addrA.String()+"/32", "dev", h.pair.agentIf)
				h.run(func(args []string) []string {
					if c.name == "udhcpc" {
						return append(args, "-a")
					}
					return slices.DeleteFunc(args, func(a string) bool { return a == "--noarp" })
				})
				waitDeclines(t, h.agent, 1)
				declined = time.Now()
				ip(t, "-n", h.pair.agentNS, "addr", "del", addrA.String()+"/32", "dev", h.pair.agentIf)
			}
			bound := h.next("bound", probation+30*time.Second)
			if bound.addr != addrA.String() {
				t.Fatalf("bound %s after the probation, want %s", bound.addr, addrA)
			}
			until, ok := h.agent.Probation().Holds(addrA, declined)
			if !ok {
				t.Fatalf("%s not on probation right after the decline", addrA)
			}
			for _, s := range h.sentSince(declined, dhcpv4.MessageTypeOffer) {
				if s.at.Before(until) && s.yiaddr == addrA.String() {
					t.Errorf("OFFER of %s at %s, during the probation (until %s)", addrA, s.at.Format("15:04:05.000"), until.Format("15:04:05.000"))
				}
			}
			if !bound.at.After(until) {
				t.Errorf("bound at %s, before the probation ended at %s", bound.at.Format("15:04:05.000"), until.Format("15:04:05.000"))
			}
			discovers := h.received(dhcpv4.MessageTypeDiscover, declined, until)
			if len(discovers) == 0 {
				t.Errorf("no DISCOVER during the probation: the test shows nothing")
			}
			if c.name == "dhclient" {
				naks := slices.DeleteFunc(h.sentSince(declined, dhcpv4.MessageTypeNak), func(s sent) bool { return !s.at.Before(until) })
				if len(naks) == 0 || naks[0].msg.Message() != "10.77.0.10 was declined and is on probation" {
					t.Errorf("dhclient's INIT-REBOOT during the probation: NAKs %v, want one for the declined address", naks)
				}
			}
			if s := h.agent.Stats(time.Now()); s.Declines < 1 {
				t.Errorf("%d declines counted", s.Declines)
			}
			if log := h.logs.String(); !strings.Contains(log, `"DECLINE: address on probation" pool="default/lab" mac="52:54:00:aa:00:01" addr="10.77.0.10"`) {
				t.Errorf("the decline is not logged with MAC and address")
			}
			t.Logf("%s: declined at %s, %d DISCOVERs unanswered during the %v probation, bound %s %v after it ended",
				c.name, declined.Format("15:04:05.000"), len(discovers), probation, bound.addr, bound.at.Sub(until).Round(time.Millisecond))
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
func sendDecline(t *testing.T, p *netnsPair, addr netip.Addr) {
	t.Helper()
	var conn net.PacketConn
	if err := inNetns(p.clientNS, func() (err error) {
		conn, err = nclient4.NewRawUDPConn(p.clientIf, ClientPort)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	m, err := dhcpv4.New(dhcpv4.WithHwAddr(hw(t, macA)), dhcpv4.WithMessageType(dhcpv4.MessageTypeDecline),
		dhcpv4.WithOption(dhcpv4.OptServerIdentifier(netIP(serverIP))),
		dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(netIP(addr))),
		dhcpv4.WithOption(dhcpv4.OptMessage("address in use")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.WriteTo(m.ToBytes(), &net.UDPAddr{IP: net.IPv4bcast, Port: ServerPort}); err != nil {
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
	requireNetns(t)
	t.Parallel() // minutes of waiting for timers, not of CPU: overlap them
	t.Run("nclient4", func(t *testing.T) {
		t.Parallel()
		h := startLifecycle(t, lifecycleClients[0], lifecyclePool(labAllocated()))
		static := "10.77.0.250"
		ip(t, "-n", h.pair.clientNS, "addr", "add", static+"/24", "dev", h.pair.clientIf)
		var c *nclient4.Client
		if err := inNetns(h.pair.clientNS, func() (err error) {
			c, err = nclient4.New(h.pair.clientIf, nclient4.WithTimeout(time.Second), nclient4.WithRetry(5))
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
		want := informView(macA, static)
		want.XID = ack.TransactionID.String()
		got := viewOf(t, ack)
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
