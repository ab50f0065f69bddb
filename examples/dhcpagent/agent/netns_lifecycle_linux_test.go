package agent

import (
	"slices"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
)

// TestNetnsLifecycle runs real clients (busybox udhcpc, ISC dhclient,
// dhcpcd) through a lease's life against the agent over a veth pair, with
// an 8-second lease (T1 4s, T2 7s; udhcpc raises it to a minimum of its
// own and renews after about 15s): bind with every option; renew; the MAC
// moves to another address, and the client's next renewal is NAKed by
// unicast to its address, before its T2, and the client acts on that NAK
// and binds the new address; the MAC is removed from the pool, and the
// next renewal is NAKed and the address dropped. With the NAK broadcast
// instead (the agent's behaviour before), dhcpcd ignores the first NAK
// of each renewal, and this test fails.
//
// udhcpc sends its unicast renewal from a socket bound to ciaddr:68 that
// it closes at once, and a reply as fast as the agent's is often
// delivered to that socket and lost (busybox's source notes the race);
// udhcpc then broadcasts the renewal a second later and hears the reply.
// The test accepts either, as long as it comes before T2.
func TestNetnsLifecycle(t *testing.T) {
	netnstest.Require(t)
	t.Parallel() // minutes of waiting for timers, not of CPU: overlap them
	for _, c := range lifecycleClients {
		t.Run(c.Name, func(t *testing.T) {
			requireClient(t, c.Run("", "", "")[0])
			t.Parallel()
			h := startLifecycle(t, c, lifecyclePool(dhcp4test.LabAllocated()))
			h.run(nil)

			bound := h.next("bound", 30*time.Second)
			if bound.addr != dhcp4test.AddrA.String() {
				t.Fatalf("bound %s, want %s", bound.addr, dhcp4test.AddrA)
			}
			h.checkOptions(bound)

			renewed := h.next("renew", 3*lifecycleLease)
			if renewed.addr != dhcp4test.AddrA.String() {
				t.Fatalf("renewed %s, want %s", renewed.addr, dhcp4test.AddrA)
			}
			acks := h.sentSince(bound.at, dhcpv4.MessageTypeAck)
			if len(acks) == 0 || acks[0].to != "10.77.0.10:68" {
				t.Errorf("renewal ACKs %v, want the first to 10.77.0.10:68", acks)
			}

			// Move the MAC right after a renewal: the next renewal (T1,
			// 4s later) must learn it, well before rebinding (T2, 7s).
			if _, err := h.agent.Apply(lifecyclePool(dhcp4test.MovedAllocated())); err != nil {
				t.Fatal(err)
			}
			moved := time.Now()
			rebound := h.next("bound", 3*lifecycleLease)
			naks := h.sentSince(moved, dhcpv4.MessageTypeNak)
			if len(naks) == 0 {
				t.Fatalf("bound %s after the move without a NAK", rebound.addr)
			}
			nak := naks[0]
			// The client acts on the NAK it hears: no more NAKs before it
			// binds the new address than it is known to miss, plus one.
			if n := len(slices.DeleteFunc(slices.Clone(naks), func(s sent) bool { return s.at.After(rebound.at) })); n > 1+c.LostNaks {
				t.Errorf("%d NAKs before the client bound the new address, want at most %d: it ignored the NAK", n, 1+c.LostNaks)
			}
			if nak.to != "10.77.0.10:68" {
				t.Errorf("NAK to %s, want unicast to ciaddr 10.77.0.10:68", nak.to)
			}
			if got, want := nak.msg.Message(), "10.77.0.10 is not leased to 52:54:00:aa:00:01"; got != want {
				t.Errorf("NAK message %q, want %q", got, want)
			}
			// The client's T2, counted from the renewal's ACK: 7/8 of the
			// lease it keeps.
			t1 := renewed.at.Sub(bound.at)
			t2 := max(lifecycleLease, c.MinLease) * 7 / 8
			if d := nak.at.Sub(renewed.at); d >= t2 {
				t.Errorf("NAK %v after the renewal, at or after the client's T2 (%v): it was rebinding", d, t2)
			}
			if rebound.addr != dhcp4test.AddrA2.String() {
				t.Fatalf("bound %s after the move, want %s", rebound.addr, dhcp4test.AddrA2)
			}
			h.checkOptions(rebound)
			t.Logf("%s: renewed %v after binding, NAKed %v after that renewal (T2 at %v), bound %s %v after the NAK", c.Name,
				t1.Round(time.Millisecond), nak.at.Sub(renewed.at).Round(time.Millisecond), t2.Round(time.Millisecond),
				rebound.addr, rebound.at.Sub(nak.at).Round(time.Millisecond))

			// Remove the MAC: its next renewal is NAKed, and the client
			// drops the address.
			if _, err := h.agent.Apply(lifecyclePool(map[string]string{"10.77.0.11": dhcp4test.MACB})); err != nil {
				t.Fatal(err)
			}
			removed := time.Now()
			dropped := h.next("nak", 3*lifecycleLease)
			naks = h.sentSince(removed, dhcpv4.MessageTypeNak)
			if len(naks) == 0 {
				t.Fatalf("%s dropped its address without a NAK", c.Name)
			}
			if naks[0].to != "10.77.0.20:68" {
				t.Errorf("NAK to %s, want unicast to ciaddr 10.77.0.20:68", naks[0].to)
			}
			if got, want := naks[0].msg.Message(), "10.77.0.20 is not leased to 52:54:00:aa:00:01"; got != want {
				t.Errorf("NAK message %q, want %q", got, want)
			}
			if d := naks[0].at.Sub(rebound.at); d >= t2 {
				t.Errorf("NAK %v after binding, at or after the client's T2 (%v): not at the next renewal", d, t2)
			}
			t.Logf("%s: removed MAC NAKed %v after the removal, address dropped (%s)", c.Name,
				naks[0].at.Sub(removed).Round(time.Millisecond), dropped.name)
		})
	}
}
