package agent

import (
	"encoding/hex"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/wiretest"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// The hostile host's traffic of issue 36, on the served link:
//
//   - the stall: SOLICITs from link-local sources that do not exist
//     (fe80::1:N, N rotating), whose replies, through a UDP socket, wait
//     for neighbour discovery; stallPayload is the 34 bytes;
//   - SOLICITs from the multicast source ff02::1, whose ADVERTISE would go
//     to every node;
//   - SOLICITs with a wrong UDP checksum;
//   - a REQUEST of 85 IA_NAs filling a frame, and a relayed one of 1,000
//     (16 KB, by UDP from the listed relay's address), in the name of the
//     measuring client (which has a lease), whose REPLYs are about 3
//     times their size;
//   - RELAY-FORWs from a host that is no relay, naming the measuring
//     client's MAC in the client link-layer option.
//
// Each kind has its own transaction id, so that a reply to it is found
// among the captured ones.
var (
	stallPayload, _ = hex.DecodeString("01abcdef0001000a0003000100005e0053020003000c000000010000000000000000")
	hostileMAC      = [6]byte{0x02, 0, 0, 0, 0x66, 0x01}
	serversGroup    = netip.AddrPortFrom(netip.MustParseAddr("ff02::1:2"), 547)
	listedRelay     = netip.MustParseAddr("2001:db8:30::99")
	unlistedRelay   = netip.MustParseAddr("2001:db8:30::66")
)

const (
	xidStall     = 0xabcdef
	xidMulticast = 0x0a0001
	xidChecksum  = 0x0a0002
	xidBigFrame  = 0x0a0003
	xidBigRelay  = 0x0a0004
	xidUnlisted  = 0x0a0005
)

// probe6 is a DHCPv6 client that needs no address of its own: it sends
// from probeLL in frames from probeMAC through a wire, and times each
// SOLICIT-ADVERTISE and REQUEST-REPLY exchange until its reply is
// captured.
type probe6 struct {
	wire     *wiretest.Wire6
	mac      [6]byte
	ll       netip.Addr
	serverID []byte
	xid      uint32
}

func newProbe6(w *wiretest.Wire6, mac string) *probe6 {
	m := leasestore.MustParseMAC(mac).As6()
	ll := netip.AddrFrom16([16]byte{0xfe, 0x80, 8: m[0] ^ 2, 9: m[1], 10: m[2], 11: 0xff, 12: 0xfe, 13: m[3], 14: m[4], 15: m[5]})
	return &probe6{wire: w, mac: m, ll: ll, xid: 0x100000}
}

// exchange sends one message of typ (naming addr in its IA_NA, when
// valid) and waits up to timeout for the reply to it; it returns the
// reply and how long it took, or false.
func (p *probe6) exchange(typ dhcp6wire.MessageType, addr netip.Addr, timeout time.Duration) (*dhcp6wire.Packet, time.Duration, bool) {
	p.xid++
	x := [3]byte{byte(p.xid >> 16), byte(p.xid >> 8), byte(p.xid)}
	ia := dhcp6wire.IANA{IAID: 1}
	if addr.IsValid() {
		ia.Addrs = []dhcp6wire.IAAddr{{Addr: addr}}
	}
	m := dhcp6wire.Message{Type: typ, TransactionID: x, ClientID: dhcp6wire.AppendDUIDLL(nil, p.mac), HasElapsedTime: true,
		IANA: []dhcp6wire.IANA{ia}, ORO: []dhcp6wire.OptionCode{dhcp6wire.OptionDNSServers, dhcp6wire.OptionDomainList}}
	if typ == dhcp6wire.Request {
		m.ServerID = p.serverID
	}
	from := p.wire.Len()
	start := time.Now()
	if err := p.wire.Send(wiretest.Frame6(p.mac, wiretest.MulticastMAC(serversGroup.Addr()), netip.AddrPortFrom(p.ll, 546), serversGroup,
		dhcp6wire.AppendMessage(nil, &m))); err != nil {
		return nil, 0, false
	}
	c, ok := p.wire.WaitReply(from, timeout, func(c wiretest.Captured6) bool {
		return c.Dst.Addr() == p.ll && len(c.Payload) >= 4 && [3]byte(c.Payload[1:4]) == x
	})
	if !ok {
		return nil, 0, false
	}
	var reply dhcp6wire.Packet
	if dhcp6wire.Decode(&reply, c.Payload) != nil {
		return nil, 0, false
	}
	return &reply, c.At.Sub(start), true
}

// run does n SOLICIT then REQUEST exchanges, pause apart, and returns the
// latency of each exchange that completed, and how many did not.
func (p *probe6) run(n int, pause time.Duration) (latencies []time.Duration, failed int) {
	for range n {
		adv, d1, ok := p.exchange(dhcp6wire.Solicit, netip.Addr{}, 2*time.Second)
		if !ok || len(adv.Msg.IANA) == 0 || len(adv.Msg.IANA[0].Addrs) == 0 {
			failed++
			time.Sleep(pause)
			continue
		}
		p.serverID = adv.Msg.ServerID
		latencies = append(latencies, d1)
		if _, d2, ok := p.exchange(dhcp6wire.Request, adv.Msg.IANA[0].Addrs[0].Addr, 2*time.Second); ok {
			latencies = append(latencies, d2)
		} else {
			failed++
		}
		time.Sleep(pause)
	}
	return latencies, failed
}

// hostile6 sends the hostile host's traffic (see above) on a wire and by
// UDP from the relay addresses, which must be on the client's interface.
type hostile6 struct {
	wire      *wiretest.Wire6
	serverMAC [6]byte
	ns        string
	serverID  []byte // the agent's DUID, which a REQUEST names
	victim    [6]byte
	stall     atomic.Int64 // stall frames sent
	others    atomic.Int64 // rounds of the other kinds sent
	relayed   atomic.Int64 // rounds of the two relayed messages sent
}

// flood sends stall frames at rate a second for d, and every 100 ms one
// of each other kind, until d is over. It returns when it is.
func (h *hostile6) flood(t *testing.T, rate int, d time.Duration) {
	t.Helper()
	big := bigRequest(85, xidBigFrame, h.victim, h.serverID)
	bigRelayed := relayedTo(bigRequest(1000, xidBigRelay, h.victim, h.serverID), leasestore.MACFrom6(h.victim))
	unlisted := relayedTo(solicit6(xidUnlisted), leasestore.MustParseMAC("52:54:00:77:00:01"))
	mcast := solicit6(xidMulticast)
	bad := solicit6(xidChecksum)
	var relays sync.WaitGroup
	stop := make(chan struct{})
	relays.Add(1)
	go func() {
		defer relays.Done()
		h.relaySends(t, stop, bigRelayed, unlisted)
	}()
	start := time.Now()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	sent, n := 0, 0
	nextOther := start
	for now := range tick.C {
		if now.Sub(start) >= d {
			break
		}
		for due := int(float64(rate) * now.Sub(start).Seconds()); sent < due; sent++ {
			n++
			src := netip.AddrFrom16([16]byte{0xfe, 0x80, 12: 0, 13: 1, 14: byte(n >> 8), 15: byte(n)})
			h.wire.Send(wiretest.Frame6(hostileMAC, wiretest.MulticastMAC(serversGroup.Addr()), netip.AddrPortFrom(src, 546), serversGroup, stallPayload))
			h.stall.Add(1)
		}
		if now.After(nextOther) {
			nextOther = now.Add(100 * time.Millisecond)
			ll := netip.MustParseAddrPort("[fe80::ff:fe00:6601]:546")
			h.wire.Send(wiretest.Frame6(hostileMAC, wiretest.MulticastMAC(serversGroup.Addr()), netip.MustParseAddrPort("[ff02::1]:546"), serversGroup, mcast))
			h.wire.Send(wiretest.SpoilChecksum(wiretest.Frame6(hostileMAC, wiretest.MulticastMAC(serversGroup.Addr()), ll, serversGroup, bad)))
			h.wire.Send(wiretest.Frame6(hostileMAC, wiretest.MulticastMAC(serversGroup.Addr()), ll, serversGroup, big))
			h.others.Add(1)
		}
	}
	close(stop)
	relays.Wait()
}

// relaySends sends the 16 KB relayed REQUEST from the listed relay and a
// RELAY-FORW from the unlisted one every 100 ms until stop.
func (h *hostile6) relaySends(t *testing.T, stop <-chan struct{}, bigRelayed, unlisted []byte) {
	err := netnstest.In(h.ns, func() error {
		var conns []*net.UDPConn
		for _, a := range []netip.Addr{listedRelay, unlistedRelay} {
			c, err := net.ListenUDP("udp6", net.UDPAddrFromAddrPort(netip.AddrPortFrom(a, 547)))
			if err != nil {
				return err
			}
			defer c.Close()
			conns = append(conns, c)
		}
		server := netip.MustParseAddrPort("[2001:db8:30::1]:547")
		for {
			select {
			case <-stop:
				return nil
			case <-time.After(100 * time.Millisecond):
			}
			conns[0].WriteToUDPAddrPort(bigRelayed, server)
			conns[1].WriteToUDPAddrPort(unlisted, server)
			h.relayed.Add(1)
		}
	})
	if err != nil {
		t.Errorf("relay sends: %v", err)
	}
}

// solicit6 is a SOLICIT from a DUID-UUID (no MAC in it).
func solicit6(xid uint32) []byte {
	duid := append([]byte{0, 4}, make([]byte, 16)...)
	m := dhcp6wire.Message{Type: dhcp6wire.Solicit, TransactionID: [3]byte{byte(xid >> 16), byte(xid >> 8), byte(xid)},
		ClientID: duid, HasElapsedTime: true, IANA: []dhcp6wire.IANA{{IAID: 1}}}
	return dhcp6wire.AppendMessage(nil, &m)
}

// bigRequest is a REQUEST of mac's DUID-LL to serverID with n IA_NAs.
func bigRequest(n int, xid uint32, mac [6]byte, serverID []byte) []byte {
	m := dhcp6wire.Message{Type: dhcp6wire.Request, TransactionID: [3]byte{byte(xid >> 16), byte(xid >> 8), byte(xid)},
		ClientID: dhcp6wire.AppendDUIDLL(nil, mac), ServerID: serverID, HasElapsedTime: true}
	for i := range n {
		m.IANA = append(m.IANA, dhcp6wire.IANA{IAID: uint32(i + 1)})
	}
	return dhcp6wire.AppendMessage(nil, &m)
}

// relayedTo wraps msg in a RELAY-FORW whose client link-layer option
// names mac.
func relayedTo(msg []byte, mac leasestore.MAC) []byte {
	var p dhcp6wire.Packet
	if err := dhcp6wire.Decode(&p, msg); err != nil {
		panic(err)
	}
	m := mac.As6()
	p.Relays = []dhcp6wire.Relay{{Type: dhcp6wire.RelayForw, LinkAddr: listedRelay, PeerAddr: netip.MustParseAddr("fe80::1"),
		LinkLayerType: dhcp6wire.HWTypeEthernet, LinkLayerAddr: m[:]}}
	return dhcp6wire.Append(nil, &p)
}

// xidOf is the transaction id of the client message in a captured reply,
// inside its relay headers.
func xidOf(c wiretest.Captured6) (uint32, bool) {
	var p dhcp6wire.Packet
	if dhcp6wire.Decode(&p, c.Payload) != nil {
		return 0, false
	}
	x := p.Msg.TransactionID
	return uint32(x[0])<<16 | uint32(x[1])<<8 | uint32(x[2]), true
}

// median and maximum of ds (zero for none).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// bigRelayedReply sends one relayed REQUEST of 1,000 IA_NAs (16 KB) from
// the listed relay's address, by UDP, and returns the size of the reply
// (reassembled by the kernel), 0 when none comes within 2 s.
func (h *hostile6) bigRelayedReply(t *testing.T) (request, reply int) {
	t.Helper()
	msg := relayedTo(bigRequest(1000, xidBigRelay, h.victim, h.serverID), leasestore.MACFrom6(h.victim))
	err := netnstest.In(h.ns, func() error {
		c, err := net.ListenUDP("udp6", net.UDPAddrFromAddrPort(netip.AddrPortFrom(listedRelay, 547)))
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := c.WriteToUDPAddrPort(msg, netip.MustParseAddrPort("[2001:db8:30::1]:547")); err != nil {
			return err
		}
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		b := make([]byte, 65536)
		n, _, err := c.ReadFromUDPAddrPort(b)
		if err == nil {
			reply = n
		}
		return nil
	})
	if err != nil {
		t.Fatalf("the 16 KB relayed REQUEST: %v", err)
	}
	return len(msg), reply
}
