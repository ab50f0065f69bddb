package udpsocket

import (
	"fmt"
	"net"
	"net/netip"

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
// It is a blocking Socket, as the DHCPv4 one: a reply wakes no thread of
// Go's network poller (see Socket).
func ListenIPv6(iface string, addr netip.AddrPort) (*Socket, error) {
	return listenIPv6(iface, addr, false)
}

// ListenIPv6Group is ListenIPv6 for a server without a packet socket
// (no CAP_NET_RAW): the socket also joins ff02::1:2 on iface (required),
// so it receives the clients' multicasts too, without their frame's
// source MAC, and cannot tell them from unicast ones.
func ListenIPv6Group(iface string, addr netip.AddrPort) (*Socket, error) {
	if iface == "" {
		return nil, fmt.Errorf("udpsocket: listen on %s: joining ff02::1:2 needs an interface", addr)
	}
	return listenIPv6(iface, addr, true)
}

func listenIPv6(iface string, addr netip.AddrPort, join bool) (*Socket, error) {
	if !addr.Addr().Is6() || addr.Addr().Is4In6() {
		return nil, fmt.Errorf("udpsocket: listen on %s: %w", addr, ErrNotIPv6)
	}
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP)
	if err != nil {
		return nil, fmt.Errorf("udpsocket: socket: %w", err)
	}
	fail := func(what string, err error) (*Socket, error) {
		unix.Close(fd)
		return nil, fmt.Errorf("udpsocket: listen on %s (interface %q): %s: %w", addr, iface, what, err)
	}
	for _, o := range []struct {
		name       string
		level, opt int
		v          int
	}{
		{"IPV6_V6ONLY", unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1},
		{"SO_REUSEADDR", unix.SOL_SOCKET, unix.SO_REUSEADDR, 1},
		{"IPV6_MULTICAST_ALL", unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_ALL, 0},
	} {
		if err := unix.SetsockoptInt(fd, o.level, o.opt, o.v); err != nil {
			return fail(o.name, err)
		}
	}
	if iface != "" {
		if err := unix.BindToDevice(fd, iface); err != nil {
			return fail("SO_BINDTODEVICE", err)
		}
	}
	if join {
		ifi, err := net.InterfaceByName(iface)
		if err != nil {
			return fail("interface", err)
		}
		mreq := &unix.IPv6Mreq{Multiaddr: [16]byte{0xff, 0x02, 13: 1, 15: 2}, Interface: uint32(ifi.Index)}
		if err := unix.SetsockoptIPv6Mreq(fd, unix.IPPROTO_IPV6, unix.IPV6_JOIN_GROUP, mreq); err != nil {
			return fail("join ff02::1:2", err)
		}
	}
	if err := unix.Bind(fd, &unix.SockaddrInet6{Addr: addr.Addr().As16(), Port: int(addr.Port())}); err != nil {
		return fail("bind", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	in6, _ := sa.(*unix.SockaddrInet6)
	if in6 == nil {
		return fail("getsockname", fmt.Errorf("%T is not IPv6", sa))
	}
	return newSocket(fd, unix.AF_INET6, iface, netip.AddrPortFrom(netip.AddrFrom16(in6.Addr), uint16(in6.Port)))
}
