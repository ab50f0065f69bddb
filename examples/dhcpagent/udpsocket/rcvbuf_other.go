//go:build !linux

package udpsocket

import (
	"errors"
	"net"
	"syscall"
)

// SetReceiveBuffer asks for a socket receive buffer of bytes on conn
// (SO_RCVBUF through net.UDPConn.SetReadBuffer). Outside Linux it cannot
// read back what the kernel granted, and returns -1 for it.
func SetReceiveBuffer(conn syscall.Conn, bytes int) (granted int, err error) {
	u, ok := conn.(*net.UDPConn)
	if !ok {
		return -1, errors.New("udpsocket: SetReceiveBuffer needs a *net.UDPConn outside Linux")
	}
	return -1, u.SetReadBuffer(bytes)
}
