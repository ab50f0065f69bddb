//go:build !linux

package udpsocket

import (
	"net"
	"net/netip"
)

// ListenIPv6 outside Linux is a plain UDP socket on addr: iface and the
// unicast-only rule need Linux socket options.
func ListenIPv6(iface string, addr netip.AddrPort) (*Socket, error) {
	return net.ListenUDP("udp6", net.UDPAddrFromAddrPort(addr))
}

// ListenIPv6Group outside Linux is ListenIPv6: no group is joined.
func ListenIPv6Group(iface string, addr netip.AddrPort) (*Socket, error) {
	return ListenIPv6(iface, addr)
}
