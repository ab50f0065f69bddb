package e2e

import (
	"encoding/binary"
	"encoding/hex"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/dhcpv6"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"golang.org/x/sys/unix"
)

// packet is one DHCP message a client's link carried, as the client's
// own namespace saw it.
type packet struct {
	at       time.Time
	out      bool // sent by the client (else received by it)
	v6       bool
	typ      string // DHCPv4 or DHCPv6 message type
	xid      string
	dst      netip.Addr
	ciaddr   netip.Addr    // DHCPv4
	addr     netip.Addr    // the address a reply gives (yiaddr, IA_NA)
	serverID string        // option 54's address, or the DHCPv6 server DUID in hex
	renewal  bool          // a DHCPv4 REQUEST from a bound client (ciaddr set), a DHCPv6 RENEW or REBIND
	chaddr   string        // DHCPv4
	lease    time.Duration // DHCPv4: the lease time a reply gives
}

// capture records every DHCP message on one interface, in both
// directions (an AF_PACKET socket of all protocols sees the frames the
// host sends too): the client's side of every exchange, whichever
// program runs there.
type capture struct {
	mac  net.HardwareAddr
	mu   sync.Mutex
	pkts []packet
}

// openCapture starts capturing on iface in ns; it stops at the end of
// the test.
func openCapture(t testing.TB, ns, iface, mac string) *capture {
	t.Helper()
	c := &capture{}
	c.mac, _ = net.ParseMAC(mac)
	var fd int
	err := netnstest.In(ns, func() error {
		ifi, err := net.InterfaceByName(iface)
		if err != nil {
			return err
		}
		proto := htons(unix.ETH_P_ALL)
		if fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(proto)); err != nil {
			return err
		}
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 4<<20)
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 100_000}); err != nil {
			return err
		}
		return unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: proto, Ifindex: ifi.Index})
	})
	if err != nil {
		t.Fatalf("capture on %s in %s: %v", iface, ns, err)
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		buf := make([]byte, 65536)
		for {
			select {
			case <-done:
				return
			default:
			}
			n, from, err := unix.Recvfrom(fd, buf, 0)
			if err != nil {
				continue
			}
			ll, _ := from.(*unix.SockaddrLinklayer)
			if p, ok := parseFrame(buf[:n]); ok {
				p.at = time.Now()
				p.out = ll != nil && ll.Pkttype == unix.PACKET_OUTGOING
				if !p.v6 && p.chaddr != c.mac.String() {
					continue // another client's broadcast exchange
				}
				c.mu.Lock()
				c.pkts = append(c.pkts, p)
				c.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		close(done)
		<-stopped
		unix.Close(fd)
	})
	return c
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// parseFrame reads a DHCPv4 or DHCPv6 message out of an Ethernet frame.
func parseFrame(f []byte) (packet, bool) {
	if len(f) < 14 {
		return packet{}, false
	}
	var udp []byte
	var dst netip.Addr
	switch binary.BigEndian.Uint16(f[12:14]) {
	case unix.ETH_P_IP:
		ip := f[14:]
		if len(ip) < 20 || ip[9] != unix.IPPROTO_UDP {
			return packet{}, false
		}
		dst = netip.AddrFrom4([4]byte(ip[16:20]))
		udp = ip[int(ip[0]&0x0f)*4:]
	case unix.ETH_P_IPV6:
		ip := f[14:]
		if len(ip) < 40 || ip[6] != unix.IPPROTO_UDP {
			return packet{}, false
		}
		dst = netip.AddrFrom16([16]byte(ip[24:40]))
		udp = ip[40:]
	default:
		return packet{}, false
	}
	if len(udp) < 8 {
		return packet{}, false
	}
	sport, dport := binary.BigEndian.Uint16(udp[0:2]), binary.BigEndian.Uint16(udp[2:4])
	payload := udp[8:]
	p := packet{dst: dst}
	switch {
	case sport == 68 && dport == 67 || sport == 67 && dport == 68:
		m, err := dhcpv4.FromBytes(payload)
		if err != nil {
			return packet{}, false
		}
		p.typ, p.xid = m.MessageType().String(), m.TransactionID.String()
		p.ciaddr, _ = netip.AddrFromSlice(m.ClientIPAddr.To4())
		p.addr, _ = netip.AddrFromSlice(m.YourIPAddr.To4())
		if id := m.ServerIdentifier(); id != nil {
			p.serverID = id.String()
		}
		p.renewal = m.MessageType() == dhcpv4.MessageTypeRequest && p.ciaddr.IsValid() && !p.ciaddr.IsUnspecified()
		p.chaddr = m.ClientHWAddr.String()
		p.lease = m.IPAddressLeaseTime(0)
	case sport == 546 && dport == 547 || sport == 547 && dport == 546:
		d, err := dhcpv6.FromBytes(payload)
		if err != nil {
			return packet{}, false
		}
		m, ok := d.(*dhcpv6.Message)
		if !ok {
			return packet{}, false
		}
		p.v6 = true
		p.typ, p.xid = m.MessageType.String(), m.TransactionID.String()
		if id := m.Options.ServerID(); id != nil {
			p.serverID = hex.EncodeToString(id.ToBytes())
		}
		if ia := m.Options.OneIANA(); ia != nil {
			if as := ia.Options.Addresses(); len(as) > 0 {
				p.addr, _ = netip.AddrFromSlice(as[0].IPv6Addr)
			}
		}
		p.renewal = m.MessageType == dhcpv6.MessageTypeRenew || m.MessageType == dhcpv6.MessageTypeRebind
	default:
		return packet{}, false
	}
	return p, true
}

// exchange is one request the client sent and the replies it got to it:
// those of its transaction, until the client sent the next message of
// that transaction or 3 s passed.
type exchange struct {
	req     packet
	replies []packet
}

// exchanges are the client's requests sent in [from, to) with their
// replies.
func (c *capture) exchanges(from, to time.Time) []exchange {
	c.mu.Lock()
	pkts := append([]packet(nil), c.pkts...)
	c.mu.Unlock()
	var xs []exchange
	for i, p := range pkts {
		if !p.out || p.at.Before(from) || !p.at.Before(to) || !isRequest(p) {
			continue
		}
		x := exchange{req: p}
		for _, q := range pkts[i+1:] {
			if q.at.Sub(p.at) > 3*time.Second {
				break
			}
			if q.v6 != p.v6 || q.xid != p.xid {
				continue
			}
			if q.out {
				if q.typ == p.typ {
					break // a retransmission: later replies are its
				}
				continue
			}
			if answers(q, p) {
				x.replies = append(x.replies, q)
			}
		}
		xs = append(xs, x)
	}
	return xs
}

// replies are the replies the client received in [from, to).
func (c *capture) replies(from, to time.Time) []packet {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []packet
	for _, p := range c.pkts {
		if !p.out && isReply(p) && !p.at.Before(from) && p.at.Before(to) {
			out = append(out, p)
		}
	}
	return out
}

// isReply reports whether p is a server's message to a client (the
// link also carries other clients' multicasts).
func isReply(p packet) bool {
	switch p.typ {
	case "OFFER", "ACK", "NAK", "ADVERTISE", "REPLY", "RECONFIGURE":
		return true
	}
	return false
}

// answers reports whether reply is of a type that answers req (dhclient
// uses one transaction ID for its DISCOVER and its REQUEST: a late OFFER
// is not an answer to the REQUEST).
func answers(reply, req packet) bool {
	switch req.typ {
	case "DISCOVER":
		return reply.typ == "OFFER"
	case "REQUEST", "INFORM":
		return reply.typ == "ACK" || reply.typ == "NAK"
	case "SOLICIT":
		return reply.typ == "ADVERTISE" || reply.typ == "REPLY"
	}
	return reply.typ == "REPLY"
}

// isRequest reports whether p is a client message a server answers.
func isRequest(p packet) bool {
	switch p.typ {
	case "DISCOVER", "REQUEST", "INFORM", "SOLICIT", "RENEW", "REBIND", "CONFIRM", "INFORMATION-REQUEST":
		return true
	}
	return false
}
