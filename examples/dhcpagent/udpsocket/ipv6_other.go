//go:build !linux

package udpsocket

import (
	"net"
	"net/netip"
)

// ListenIPv6 outside Linux is a plain UDP socket on addr: iface and the
// unicast-only rule need Linux socket options.
func ListenIPv6(iface string, addr netip.AddrPort) (*net.UDPConn, error) {
	return net.ListenUDP("udp6", net.UDPAddrFromAddrPort(addr))
}
