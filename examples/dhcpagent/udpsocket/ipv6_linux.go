package udpsocket

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// ListenIPv6 binds the DHCPv6 server's UDP socket on addr (the agent
// binds [::]:547) that receives only what arrives on the interface iface
// (SO_BINDTODEVICE; "" for every interface) and only unicast datagrams:
// IPV6_MULTICAST_ALL is 0 and the socket joins no group, so a message a
// client multicasts to ff02::1:2 reaches it even when another socket of
// the host joined that group. The agent reads those from a
// packetsocket.Socket, which also gives their frame's source MAC; this
// socket gets what relays send (RELAY-FORW, unicast to a global address
// of the server) and sends every reply, from the interface's link-local
// address to a client's (give the zone, or rely on the bound interface).
//
// It is a *net.UDPConn: its reads are rare (relayed traffic only) and go
// through Go's network poller; writes are one sendmsg each.
func ListenIPv6(iface string, addr netip.AddrPort) (*net.UDPConn, error) {
	return listenIPv6(iface, addr, false)
}

// ListenIPv6Group is ListenIPv6 for a server without a packet socket
// (no CAP_NET_RAW): the socket also joins ff02::1:2 on iface (required),
// so it receives the clients' multicasts too, without their frame's
// source MAC, and cannot tell them from unicast ones.
func ListenIPv6Group(iface string, addr netip.AddrPort) (*net.UDPConn, error) {
	if iface == "" {
		return nil, fmt.Errorf("udpsocket: listen on %s: joining ff02::1:2 needs an interface", addr)
	}
	return listenIPv6(iface, addr, true)
}

func listenIPv6(iface string, addr netip.AddrPort, join bool) (*net.UDPConn, error) {
	if !addr.Addr().Is6() || addr.Addr().Is4In6() {
		return nil, fmt.Errorf("udpsocket: listen on %s: not an IPv6 address", addr)
	}
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var opErr error
		err := c.Control(func(fd uintptr) {
			set := func(what string, level, opt, v int) {
				if opErr == nil {
					if err := unix.SetsockoptInt(int(fd), level, opt, v); err != nil {
						opErr = fmt.Errorf("%s: %w", what, err)
					}
				}
			}
			set("IPV6_V6ONLY", unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1)
			set("SO_REUSEADDR", unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
			set("IPV6_MULTICAST_ALL", unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_ALL, 0)
			if iface != "" && opErr == nil {
				if err := unix.BindToDevice(int(fd), iface); err != nil {
					opErr = fmt.Errorf("SO_BINDTODEVICE: %w", err)
				}
			}
			if join && opErr == nil {
				ifi, err := net.InterfaceByName(iface)
				if err != nil {
					opErr = err
					return
				}
				mreq := &unix.IPv6Mreq{Multiaddr: [16]byte{0xff, 0x02, 13: 1, 15: 2}, Interface: uint32(ifi.Index)}
				if err := unix.SetsockoptIPv6Mreq(int(fd), unix.IPPROTO_IPV6, unix.IPV6_JOIN_GROUP, mreq); err != nil {
					opErr = fmt.Errorf("join ff02::1:2: %w", err)
				}
			}
		})
		if err != nil {
			return err
		}
		return opErr
	}}
	pc, err := lc.ListenPacket(context.Background(), "udp6", addr.String())
	if err != nil {
		return nil, fmt.Errorf("udpsocket: listen on %s (interface %q): %w", addr, iface, err)
	}
	return pc.(*net.UDPConn), nil
}
