package agent

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp6wire"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/packetsocket"
	"github.com/vmnetkit/vmnetkit/leasestore"
)

// DHCPv6 ports (RFC 8415 section 7.2).
const (
	ClientPort6 = 546
	ServerPort6 = 547
)

// Multicast6 is where Serve6 reads the messages clients multicast to
// ff02::1:2 with the frame's source MAC: a *packetsocket.Socket.
type Multicast6 interface {
	Read(b []byte) (packetsocket.Frame, error)
	Close() error
}

// errNoIPv6 is why a DHCPv6 message gets no reply while the pool has no
// IPv6 part.
var errNoIPv6 = errors.New("the pool has no IPv6 part (spec.ipv6)")

// Serve6 answers DHCPv6 from the pool's IPv6 part until ctx is done or a
// socket fails, then closes both sockets; it returns nil when ctx ended
// it. It reads the messages clients multicast to ff02::1:2 from mc (with
// each frame's source MAC, the identity of a client whose DUID holds no
// MAC) and the unicast ones, which relays send, from conn (a socket of
// udpsocket.ListenIPv6, which receives no multicast, so that no message is
// answered twice), each on a goroutine of its own, and sends every reply
// through conn: to the client's link-local address on zone (the
// interface's name) port 546, or inside RELAY-REPL to the relay it came
// from. A nil mc reads from conn alone (which must then receive the
// multicast itself; the agent's command always gives one).
//
// The decision is dhcp6.Decide, from the table version being served (the
// one the DHCPv4 side serves, swapped with it), the agent's DUID
// (WithServerDUID), its probation and its clock. What the decision reports
// the server remembers: a binding REPLY (for the decline window, as for
// DHCPv4), a DECLINE within the window puts the address on probation in
// the name of the client's MAC (logged, counted, passed to the decline
// hook: an Event in API-server mode), a probation lifted, a RELEASE
// (logged and counted). Per message it allocates nothing.
func (a *Agent) Serve6(ctx context.Context, conn Conn, mc Multicast6, zone string) error {
	stop := context.AfterFunc(ctx, func() {
		conn.Close()
		if mc != nil {
			mc.Close()
		}
	})
	defer stop()
	a.log.Info("serving DHCPv6", "addr", conn.LocalAddr().String(), "multicast", mc != nil, "interface", zone)
	errc := make(chan error, 2)
	n := 1
	go func() { errc <- a.readUnicast6(conn, zone) }()
	if mc != nil {
		n++
		go func() { errc <- a.readMulticast6(mc, conn, zone) }()
	}
	var first error
	for range n {
		err := <-errc
		if first == nil {
			first = err
			// One loop ended: end the other.
			conn.Close()
			if mc != nil {
				mc.Close()
			}
		}
	}
	if ctx.Err() != nil && errors.Is(first, net.ErrClosed) {
		return nil
	}
	return first
}

// scratch6 is one read loop's reused memory: the request decoded in
// place, the reply built in place, the datagram encoded in place.
type scratch6 struct {
	buf   []byte
	req   dhcp6wire.Packet
	reply dhcp6.Reply
	out   []byte
}

func newScratch6() *scratch6 {
	return &scratch6{buf: make([]byte, 65535), out: make([]byte, 0, 1500)}
}

// readMulticast6 answers what mc reads until it fails.
func (a *Agent) readMulticast6(mc Multicast6, w replyWriter, zone string) error {
	s := newScratch6()
	y := yielder{last: time.Now()}
	for {
		if y.due(time.Now()) { // see Serve: reads that wait in the kernel
			runtime.Gosched()
		}
		f, err := mc.Read(s.buf)
		if err != nil {
			return err
		}
		arr := dhcp6.Arrival{Source: f.Src.Addr(), FrameMAC: leasestore.MACFrom6(f.SrcMAC), HasFrame: true}
		a.handle6(s, w, f.Payload, arr, f.Src, zone)
	}
}

// readUnicast6 answers what conn reads until it fails: what relays send
// (and clients that unicast, which the decision tells to use multicast).
func (a *Agent) readUnicast6(conn Conn, zone string) error {
	s := newScratch6()
	for {
		n, peer, err := conn.ReadFromUDPAddrPort(s.buf)
		if err != nil {
			return err
		}
		arr := dhcp6.Arrival{Source: peer.Addr().WithZone(""), Unicast: true}
		a.handle6(s, conn, s.buf[:n], arr, peer, zone)
	}
}

// table6At is the dhcp6.Table of v at now: its IPv6 part, the agent's
// DUID, and the probation while it holds an address.
func (a *Agent) table6At(v *version, now time.Time) dhcp6.Table {
	t := dhcp6.Table{Leases: v.v6.store, Prefix: v.v6.prefix, Options: v.v6.options, ServerID: a.serverID}
	if !a.probation.Empty() {
		t.Probation, t.Now = a.probation, now
	}
	return t
}

// handle6 answers one DHCPv6 datagram that arrived as arr from peer.
func (a *Agent) handle6(s *scratch6, w replyWriter, payload []byte, arr dhcp6.Arrival, peer netip.AddrPort, zone string) {
	now := a.now()
	a.counters6.Received.Add(1)
	if err := dhcp6wire.Decode(&s.req, payload); err != nil {
		a.drop6(nil, peer, err)
		return
	}
	v := a.table.Load()
	if v == nil || v.v6 == nil {
		a.drop6(&s.req.Msg, peer, errNoIPv6)
		return
	}
	d, err := dhcp6.Decide(&s.reply, &s.req, arr, a.table6At(v, now))
	if err != nil {
		a.drop6(&s.req.Msg, peer, err)
		return
	}
	a.remember6(v, &s.req.Msg, d, now)
	s.out = s.reply.Append(s.out[:0])
	dst := peer
	if len(s.req.Relays) == 0 {
		dst = netip.AddrPortFrom(peer.Addr().WithZone(zone), ClientPort6)
	}
	if _, err := w.WriteToUDPAddrPort(s.out, dst); err != nil {
		a.counters6.SendErrors.Add(1)
		a.log.Error(err, "DHCPv6 send failed", "type", d.Type.String(), "to", dst.String())
		return
	}
	if d.Type == dhcp6wire.Advertise {
		a.counters6.Offers.Add(1)
	} else {
		a.counters6.Acks.Add(1)
	}
	if a.log.V(packetLevel).Enabled() {
		a.log.V(packetLevel).Info(d.Type.String(), "to", dst.String(), "request", s.req.Msg.Type.String(),
			"xid", xid6(s.req.Msg.TransactionID), "mac", d.Client.MAC.String(), "source", d.Client.Source.String(),
			"addr", d.Lease.Addr.String(), "bound", d.Bound)
	}
}

func (a *Agent) drop6(m *dhcp6wire.Message, peer netip.AddrPort, err error) {
	a.counters6.Drops.Add(1)
	if !a.log.V(packetLevel).Enabled() {
		return
	}
	if m == nil {
		a.log.V(packetLevel).Info("not a DHCPv6 message", "from", peer.String(), "err", err.Error())
		return
	}
	a.log.V(packetLevel).Info("no DHCPv6 reply", "from", peer.String(), "type", m.Type.String(),
		"xid", xid6(m.TransactionID), "reason", err.Error())
}

func xid6(x [3]byte) string {
	const hex = "0123456789abcdef"
	b := [6]byte{hex[x[0]>>4], hex[x[0]&15], hex[x[1]>>4], hex[x[1]&15], hex[x[2]>>4], hex[x[2]&15]}
	return string(b[:])
}

// remember6 applies what a decision reports: the binding REPLY for the
// decline window, a probation lifted, a RELEASE, a DECLINE.
func (a *Agent) remember6(v *version, m *dhcp6wire.Message, d dhcp6.Decision, now time.Time) {
	if d.Bound {
		b := a.bound6.Load()
		if b == nil {
			bound6Once.Lock()
			if b = a.bound6.Load(); b == nil {
				b = new(bindings6)
				a.bound6.Store(b)
			}
			bound6Once.Unlock()
		}
		b.record(d.Lease.Addr, now)
	}
	// Each is counted last, once logged (and passed to the hook): a
	// count seen means the rest is done.
	if d.Lifted && a.probation.Lift(d.Client.MAC, d.Lease.Addr, now) {
		if ok, skipped := a.liftLines.allow(now); ok {
			a.log.Info("DHCPv6: probation lifted, the client asks to keep the address declined in its name",
				"pool", v.pool, "mac", d.Client.MAC.String(), "addr", d.Lease.Addr.String(), "notLogged", skipped)
		}
		a.counters6.Lifts.Add(1)
	}
	if d.Released.IsValid() {
		if ok, skipped := a.releaseLines.allow(now); ok {
			a.log.Info("DHCPv6 RELEASE", "pool", v.pool, "mac", d.Client.MAC.String(), "source", d.Client.Source.String(),
				"addr", d.Released.String(), "notLogged", skipped)
		}
		a.counters6.Releases.Add(1)
	}
	if !d.Declined.IsValid() {
		return
	}
	if a.declineWindow > 0 {
		if since, ok := a.bound6.Load().since(d.Declined, now); !ok || since > a.declineWindow {
			a.counters6.Drops.Add(1)
			if a.log.V(packetLevel).Enabled() {
				a.log.V(packetLevel).Info("DHCPv6 DECLINE ignored", "mac", d.Client.MAC.String(), "addr", d.Declined.String(),
					"reason", ErrNotJustBound.Error())
			}
			return
		}
	}
	until := a.probation.Decline(d.Client.MAC, d.Declined, now)
	dec := Decline{Pool: v.pool, MAC: d.Client.MAC.String(), Addr: d.Declined, Until: until}
	if ok, skipped := a.declineLines.allow(now); ok {
		a.log.Info("DHCPv6 DECLINE: address on probation", "pool", dec.Pool, "mac", dec.MAC,
			"source", d.Client.Source.String(), "addr", dec.Addr.String(),
			"until", until.UTC().Format(time.RFC3339), "notLogged", skipped)
	}
	if a.onDecline != nil {
		a.onDecline(dec)
	}
	a.counters6.Declines.Add(1)
}

// bound6Once serializes the allocation of an Agent's bindings6.
var bound6Once sync.Mutex
