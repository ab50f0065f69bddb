//go:build !linux

package agent

import "net"

// SetReceiveBuffer asks for a socket receive buffer of bytes on conn
// (SO_RCVBUF through net.UDPConn.SetReadBuffer). Outside Linux it cannot
// read back what the kernel granted, and returns -1 for it.
func SetReceiveBuffer(conn *net.UDPConn, bytes int) (granted int, err error) {
	return -1, conn.SetReadBuffer(bytes)
}
