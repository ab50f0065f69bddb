//go:build !linux

package udpsocket

import (
	"net"
	"net/netip"

	"github.com/insomniacslk/dhcp/dhcpv4/server4"
)

// Socket is Go's UDP socket outside Linux: the blocking socket of the
// Linux build needs SO_BINDTODEVICE.
type Socket = net.UDPConn

// Listen binds a UDP socket on addr that may send to the broadcast
// address, on the interface iface where the system supports it.
func Listen(iface string, addr netip.AddrPort) (*Socket, error) {
	return server4.NewIPv4UDPConn(iface, net.UDPAddrFromAddrPort(addr))
}
