package udpsocket

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// SetReceiveBuffer asks the kernel for a socket receive buffer (SO_RCVBUF)
// of bytes on conn (a *net.UDPConn or a *Socket), so that a burst of
// requests (every VM of a host booting at once) waits in the socket rather
// than being dropped while the agent is busy, and returns what the kernel
// granted, as getsockopt reports it (Linux doubles the request for its own
// bookkeeping). It first tries SO_RCVBUFFORCE, which with CAP_NET_ADMIN
// goes past net.core.rmem_max, then SO_RCVBUF, which the kernel caps at
// rmem_max. The error is from reading the size back, or from the last
// setsockopt when both failed.
func SetReceiveBuffer(conn syscall.Conn, bytes int) (granted int, err error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, err
	}
	var opErr error
	if err := raw.Control(func(fd uintptr) { granted, opErr = setReceiveBuffer(int(fd), bytes) }); err != nil {
		return 0, err
	}
	return granted, opErr
}

func setReceiveBuffer(fd, bytes int) (granted int, err error) {
	setErr := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, bytes)
	if setErr != nil {
		setErr = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, bytes)
	}
	granted, getErr := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF)
	if getErr != nil {
		return 0, fmt.Errorf("udpsocket: read SO_RCVBUF: %w", getErr)
	}
	if setErr != nil {
		return granted, fmt.Errorf("udpsocket: set SO_RCVBUF to %d: %w", bytes, setErr)
	}
	return granted, nil
}
