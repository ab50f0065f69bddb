package agent

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
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

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/pooltest"
)

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
	pooltest.WriteFile(t, l.path, lab6Pool(map[string]string{"2001:db8:30::b": "52:54:00:aa:00:02"}))
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

// TestNetns6InformDhcpcd: dhcpcd's INFORMATION-REQUEST (--inform6, no
// IA_NA), from a MAC the pool holds and from one it does not, gets the
// pool's name server and search list and no address.
func TestNetns6InformDhcpcd(t *testing.T) {
	for _, tt := range []struct{ name, mac string }{
		{"leased MAC", "52:54:00:aa:00:01"},
		{"unknown MAC", "52:54:00:aa:00:77"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := newLab6(t, tt.mac, map[string]string{"2001:db8:30::a": "52:54:00:aa:00:01"})
			netnstest.LinkLocal(t, l.p.ClientNS, l.p.ClientIf)
			c := netnstest.StartClient6(t, netnstest.Dhcpcd, l.p, netnstest.Client6Config{InfoOnly: true})
			e := c.Wait("the information reply", 20*time.Second, func(e netnstest.Event6) bool { return e.DNS != "" })
			if e.DNS != lab6DNS || e.Search != strings.Join(lab6Search, " ") || e.Addr.IsValid() {
				t.Errorf("information-request answered %v, want DNS %s, search %v and no address", e, lab6DNS, lab6Search)
			}
			if got := l.p.Addrs(t); len(got) != 0 {
				t.Errorf("the client's interface has %v after an information-request", got)
			}
		})
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
// address on port 547, reaches the unicast UDP socket (and only it). From
// a relay -relays6 lists, the agent answers inside a RELAY-REPL to the
// relay: the client, with a DUID-UUID, is found by the client link-layer
// address option (RFC 6939) the relay added. From any other host the same
// message is dropped, counted and logged: its option would hand that
// host any MAC's address.
func TestNetns6Relayed(t *testing.T) {
	const mac = "52:54:00:aa:00:05"
	for _, tc := range []struct {
		name    string
		relays  []netip.Prefix
		answers bool
	}{
		{"listed relay", []netip.Prefix{netip.MustParsePrefix("2001:db8:30::99/128")}, true},
		{"relay inside a listed prefix", []netip.Prefix{netip.MustParsePrefix("2001:db8:30::/120")}, true},
		{"unlisted relay", []netip.Prefix{netip.MustParsePrefix("2001:db8:30::98/128")}, false},
		{"no relay listed", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLab6(t, "52:54:00:ff:00:01", map[string]string{"2001:db8:30::5": mac}, WithRelays6(tc.relays)) // the relay's own MAC has no lease
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
			wait := 5 * time.Second
			if !tc.answers {
				wait = 2 * time.Second
			}
			err := netnstest.In(l.p.ClientNS, func() error {
				conn, err := net.ListenUDP("udp6", &net.UDPAddr{IP: net.ParseIP("2001:db8:30::99"), Port: ServerPort6})
				if err != nil {
					return err
				}
				defer conn.Close()
				if _, err := conn.WriteToUDPAddrPort(dhcp6wire.Append(nil, &req), netip.MustParseAddrPort("[2001:db8:30::1]:547")); err != nil {
					return err
				}
				conn.SetReadDeadline(time.Now().Add(wait))
				b := make([]byte, 1500)
				n, _, err := conn.ReadFromUDPAddrPort(b)
				reply = b[:n]
				return err
			})
			if !tc.answers {
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Errorf("the unlisted relay got %d bytes (err %v), want no answer", len(reply), err)
				}
				waitFor(t, "the relayed message to be counted", func() bool { return l.a.Stats6(time.Now()).Received == 1 })
				if s := l.a.Stats6(time.Now()); s.UntrustedRelays != 1 || s.Offers != 0 {
					t.Errorf("counted %d untrusted relays and %d ADVERTISEs, want 1 and 0", s.UntrustedRelays, s.Offers)
				}
				if n := strings.Count(l.logs.String(), "its relay is not listed"); n != 1 {
					t.Errorf("%d log lines name the unlisted relay, want 1:\n%s", n, l.logs)
				}
				return
			}
			if err != nil {
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
		})
	}
}
