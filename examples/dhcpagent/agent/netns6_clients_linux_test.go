package agent

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/pooltest"
)

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
			pooltest.WriteFile(t, l.path, lab6Pool(map[string]string{"2001:db8:30::20": mac, "2001:db8:30::b": "52:54:00:aa:00:02"}))
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

// TestNetns6WithoutPacketSocket: the command's fallback without
// CAP_NET_RAW, one UDP socket that joins ff02::1:2, serves dhclient -6
// with its DUID-LLT, and a DUID-UUID client by its EUI-64 link-local
// address; each message is answered once.
func TestNetns6WithoutPacketSocket(t *testing.T) {
	uuid := []byte{0, 4, 0x6f, 0x1c, 0x9e, 0x10, 0x4b, 0x1d, 0x4e, 0x8a, 0x9c, 0x3e, 0x2a, 0x61, 0x7d, 0x05, 0x11, 0x42}
	for _, tc := range []struct {
		name, source string
		duid         []byte
	}{{"DUID-LLT", "duid", nil}, {"DUID-UUID", "link-local", uuid}} {
		t.Run(tc.name, func(t *testing.T) {
			const mac = "52:54:00:aa:00:07"
			l := newLab6With(t, false, mac, map[string]string{"2001:db8:30::7": mac})
			netnstest.LinkLocal(t, l.p.ClientNS, l.p.ClientIf)
			c := netnstest.StartClient6(t, netnstest.Dhclient, l.p, netnstest.Client6Config{DUID: tc.duid})
			checkBound(t, l, c.Wait("a binding", 20*time.Second, isBound), "2001:db8:30::7")
			waitFor(t, "the agent to log its REPLY", func() bool { return len(l.sources()) > 0 })
			if got := l.sources(); !slices.Equal(got, []string{tc.source}) {
				t.Errorf("the agent found the client's MAC from %v, want %s", got, tc.source)
			}
			s := l.a.Stats6(time.Now())
			if s.Received != s.Offers+s.Acks || s.Drops != 0 {
				t.Errorf("received %d messages, answered %d+%d, dropped %d: each once, none dropped", s.Received, s.Offers, s.Acks, s.Drops)
			}
		})
	}
}
