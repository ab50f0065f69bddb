package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"

	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
)

// silence is how long a client waits before it concludes that the agent
// will not answer.
const silence = 300 * time.Millisecond

// udpClient sends DHCPv4 messages built with the library to the agent over
// a UDP socket and reads the replies. nclient4 needs a raw socket on a real
// interface; on loopback, a plain socket on an ephemeral port is the
// client, and Destination answers it at its source.
type udpClient struct {
	t      *testing.T
	conn   *net.UDPConn
	server *net.UDPAddr
	xid    uint32
}

// loopbackConns are the sockets Serve is tested on: the agent's own
// Socket, which its command listens with, and Go's *net.UDPConn.
var loopbackConns = []struct {
	name   string
	listen func(t *testing.T) Conn
}{
	{"Socket", func(t *testing.T) Conn {
		s, err := udpsocket.Listen("", netip.MustParseAddrPort("127.0.0.1:0"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}},
	{"net.UDPConn", func(t *testing.T) Conn {
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}},
}

// serveLoopback starts a on conn, bound to 127.0.0.1, and returns a client.
func serveLoopback(t *testing.T, a *Agent, conn Conn) *udpClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, conn) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &udpClient{t: t, conn: c, server: conn.LocalAddr().(*net.UDPAddr)}
}

// exchange sends req with a transaction ID of its own and returns the reply
// with that ID, or nil if none arrives within silence.
func (c *udpClient) exchange(req *dhcpv4.DHCPv4) *dhcpv4.DHCPv4 {
	c.t.Helper()
	c.xid++
	binary.BigEndian.PutUint32(req.TransactionID[:], c.xid)
	if _, err := c.conn.WriteToUDP(req.ToBytes(), c.server); err != nil {
		c.t.Fatal(err)
	}
	buf := make([]byte, 1500)
	c.conn.SetReadDeadline(time.Now().Add(silence))
	for {
		n, from, err := c.conn.ReadFromUDP(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil
		}
		if err != nil {
			c.t.Fatal(err)
		}
		if from.String() != c.server.String() {
			c.t.Fatalf("reply from %s, want the agent at %s", from, c.server)
		}
		resp, err := dhcpv4.FromBytes(buf[:n])
		if err != nil {
			c.t.Fatalf("reply does not parse: %v", err)
		}
		if resp.TransactionID == req.TransactionID {
			return resp
		}
	}
}

// TestLoopback runs the agent on a real UDP socket and walks known,
// unknown and moved MACs through DISCOVER and REQUEST, checking every
// field and option of each reply.
func TestLoopback(t *testing.T) {
	for _, conn := range loopbackConns {
		t.Run(conn.name, func(t *testing.T) {
			logs := &logtest.Buffer{}
			a := newAgent(t, labtest.Pool(dhcp4test.LabAllocated()), logtest.Logger(logs, packetLevel))
			c := serveLoopback(t, a, conn.listen(t))

			steps := []struct {
				name   string
				before func() // run before the request
				req    *dhcpv4.DHCPv4
				want   *dhcp4test.View // nil: no reply
			}{
				{name: "known MAC discovers", req: dhcp4test.Discover(t, dhcp4test.MACA), want: ptr(dhcp4test.OfferView(dhcp4test.MACA, dhcp4test.AddrA))},
				{name: "known MAC selects the offer", req: dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA), want: ptr(dhcp4test.AckView(dhcp4test.MACA, "0.0.0.0", dhcp4test.AddrA))},
				{name: "known MAC renews", req: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA), want: ptr(dhcp4test.AckView(dhcp4test.MACA, "10.77.0.10", dhcp4test.AddrA))},
				{name: "second MAC discovers", req: dhcp4test.Discover(t, dhcp4test.MACB), want: ptr(dhcp4test.OfferView(dhcp4test.MACB, dhcp4test.AddrB))},
				{name: "unknown MAC discovers: silence", req: dhcp4test.Discover(t, dhcp4test.MACUnknown)},
				{
					name: "unknown MAC requests an address of the pool: NAK",
					req:  dhcp4test.Selecting(t, dhcp4test.MACUnknown, dhcp4test.ServerIP, dhcp4test.AddrA),
					want: ptr(dhcp4test.NakView(dhcp4test.MACUnknown, "10.77.0.10 is not leased to 52:54:00:ff:ff:ff")),
				},
				{
					name: "unknown MAC renews an address of the pool: NAK",
					req:  dhcp4test.Renewing(t, dhcp4test.MACUnknown, dhcp4test.AddrA),
					want: ptr(dhcp4test.NakView(dhcp4test.MACUnknown, "10.77.0.10 is not leased to 52:54:00:ff:ff:ff")),
				},
				{name: "unknown MAC renews an address of another network: silence", req: dhcp4test.Renewing(t, dhcp4test.MACUnknown, netip.MustParseAddr("192.168.1.7"))},
				{name: "known MAC selects another server: silence", req: dhcp4test.Selecting(t, dhcp4test.MACA, netip.MustParseAddr("10.77.0.254"), dhcp4test.AddrA)},
				{
					name: "moved MAC renews its old address: NAK",
					before: func() {
						if _, err := a.Apply(labtest.Pool(dhcp4test.MovedAllocated())); err != nil {
							t.Fatal(err)
						}
					},
					req:  dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA),
					want: ptr(dhcp4test.NakView(dhcp4test.MACA, "10.77.0.10 is not leased to 52:54:00:aa:00:01")),
				},
				{
					name: "moved MAC reboots with its old address: NAK",
					req:  dhcp4test.InitReboot(t, dhcp4test.MACA, dhcp4test.AddrA),
					want: ptr(dhcp4test.NakView(dhcp4test.MACA, "10.77.0.10 is not leased to 52:54:00:aa:00:01")),
				},
				{name: "moved MAC discovers: new address", req: dhcp4test.Discover(t, dhcp4test.MACA), want: ptr(dhcp4test.OfferView(dhcp4test.MACA, dhcp4test.AddrA2))},
				{name: "moved MAC selects it", req: dhcp4test.Selecting(t, dhcp4test.MACA, dhcp4test.ServerIP, dhcp4test.AddrA2), want: ptr(dhcp4test.AckView(dhcp4test.MACA, "0.0.0.0", dhcp4test.AddrA2))},
				{name: "moved MAC renews it", req: dhcp4test.Renewing(t, dhcp4test.MACA, dhcp4test.AddrA2), want: ptr(dhcp4test.AckView(dhcp4test.MACA, "10.77.0.20", dhcp4test.AddrA2))},
				{name: "unmoved MAC is unaffected", req: dhcp4test.Renewing(t, dhcp4test.MACB, dhcp4test.AddrB), want: ptr(dhcp4test.AckView(dhcp4test.MACB, "10.77.0.11", dhcp4test.AddrB))},
			}
			for _, s := range steps {
				if s.before != nil {
					s.before()
				}
				got := c.exchange(s.req)
				switch {
				case s.want == nil && got != nil:
					t.Errorf("%s: got %s, want no reply", s.name, got.MessageType())
				case s.want != nil && got == nil:
					t.Errorf("%s: no reply within %v, want %s", s.name, silence, s.want.Options["53 message type"])
				case s.want != nil:
					s.want.XID = s.req.TransactionID.String()
					if diff := cmp.Diff(*s.want, dhcp4test.ViewOf(t, got)); diff != "" {
						t.Errorf("%s: reply (-want +got):\n%s", s.name, diff)
					}
				}
			}
			t.Logf("agent log:\n%s", logs)
		})
	}
}

func ptr[T any](v T) *T { return &v }
