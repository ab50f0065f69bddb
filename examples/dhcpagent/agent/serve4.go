package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4wire"

	"context"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/dhcp4"
)

// Serve answers DHCPv4 requests on conn until ctx is done or conn fails,
// then closes conn. It returns nil when ctx ended it.
//
// It reads with one reused buffer, decodes each message into one reused
// dhcpv4.DHCPv4 that aliases the buffer (see dhcp4wire.Decode: the rules of
// dhcpv4.FromBytes, without its allocations) and handles it (see Handle)
// on the calling goroutine before it reads the next: per message it starts
// no goroutine and allocates no buffer, which is what a DHCP server's cost
// under load is made of, since the decision itself is microseconds. A
// message that does not parse is skipped (logged at packetLevel). A
// peer that sent from 0.0.0.0 is reported to Handle as the broadcast
// address on its port, as the dhcp library's server4 does.
func (a *Agent) Serve(ctx context.Context, conn Conn) error {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	a.log.Info("serving", "addr", conn.LocalAddr().String(), "probation", a.probation.Period().String())
	buf := make([]byte, maxMessage)
	var m dhcpv4.DHCPv4 // aliases buf: nothing handle keeps may point into it
	y := yielder{last: time.Now()}
	for {
		// A read that waits in the kernel (Socket) never passes through
		// the scheduler, so to the runtime's monitor (sysmon) this
		// goroutine looks as if it ran without a break: after 10 ms it
		// would signal it to preempt, take its P, and poll every 20 µs
		// for the next millisecond. A yield every few milliseconds is a
		// scheduling point that costs far less.
		if y.due(time.Now()) {
			runtime.Gosched()
		}
		n, peer, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		if err := dhcp4wire.Decode(&m, buf[:n]); err != nil {
			if a.log.V(packetLevel).Enabled() {
				a.log.V(packetLevel).Info("not a DHCPv4 message", "from", peer.String(), "err", err.Error())
			}
			continue
		}
		a.handle(conn, clientPeer(peer), &m)
	}
}

// clientPeer is peer as Handle and Destination expect it: IPv4 in its
// 4-byte form, and a client that sent from 0.0.0.0 (it has no address
// yet) as the broadcast address on its port.
func clientPeer(peer netip.AddrPort) netip.AddrPort {
	ip := peer.Addr().Unmap()
	if !ip.IsValid() || ip == netip.IPv4Unspecified() {
		ip = dhcp4.Broadcast().Addr()
	}
	return netip.AddrPortFrom(ip, peer.Port())
}
