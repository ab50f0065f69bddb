package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"

	"context"
	"net/netip"
	"slices"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
)

// listenIn is the agent's production socket (Listen) on iface port 67
// inside the namespace ns.
func listenIn(t *testing.T, ns, iface string) *udpsocket.Socket {
	t.Helper()
	var s *udpsocket.Socket
	if err := netnstest.In(ns, func() (err error) {
		s, err = udpsocket.Listen(iface, netip.AddrPortFrom(netip.IPv4Unspecified(), dhcp4.ServerPort))
		return err
	}); err != nil {
		t.Fatalf("agent socket in %s: %v", ns, err)
	}
	return s
}

// serveIn runs a.Serve on conn until the test ends.
func serveIn(t *testing.T, a *Agent, conn Conn) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, conn) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// tapConn is a Conn that shows each DHCPv4 message it reads or sends to
// a test, decoded from a copy, as Serve sees it.
type tapConn struct {
	Conn
	read func(m *dhcpv4.DHCPv4)                                 // nil: not watched
	sent func(m *dhcpv4.DHCPv4, wire []byte, to netip.AddrPort) // nil: not watched
}

func (c *tapConn) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	n, from, err := c.Conn.ReadFromUDPAddrPort(b)
	if err == nil && c.read != nil {
		if m, perr := dhcpv4.FromBytes(slices.Clone(b[:n])); perr == nil { // Serve reuses b
			c.read(m)
		}
	}
	return n, from, err
}

func (c *tapConn) WriteToUDPAddrPort(b []byte, to netip.AddrPort) (int, error) {
	n, err := c.Conn.WriteToUDPAddrPort(b, to)
	if err == nil && c.sent != nil {
		wire := slices.Clone(b) // the agent reuses b
		if m, perr := dhcpv4.FromBytes(wire); perr == nil {
			c.sent(m, wire, to)
		}
	}
	return n, err
}
