package udpsocket

import (
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Backlog tells how full the socket's send buffer is. queued is what the
// kernel holds for datagrams sent and not yet gone: ioctl SIOCOUTQ, which
// for UDP is the socket's sk_wmem_alloc, counted in each datagram's skb
// truesize (its bytes plus the kernel's overhead: a 100-byte datagram
// counts for several hundred). capacity is the buffer's size, SO_SNDBUF
// as getsockopt reports it (Linux doubles what was set; 212,992 by
// default). Both are in the unit the kernel compares: a write fails with
// ErrWouldBlock while queued >= capacity (the last datagram that fitted
// may take queued past capacity).
//
// Datagrams usually leave at once and queued is 0; what stays waits for
// its next hop's neighbour discovery (ARP for IPv4), up to ~3 s when it
// never completes. A server keeps headroom with it: it sends a reply to an
// address not known to be reachable only while queued < capacity/2, so
// that those can never take the whole buffer from the others.
//
// It allocates nothing. After Close the error wraps net.ErrClosed; any
// other is the failed call's *os.SyscallError, in a *net.OpError.
func (s *Socket) Backlog() (queued, capacity int, err error) {
	b := &s.back
	b.mu.Lock()
	defer b.mu.Unlock()
	err = s.raw.Control(b.fn)
	switch {
	case s.closed.Load():
		return 0, 0, s.opError("backlog", net.ErrClosed)
	case err != nil:
		return 0, 0, s.opError("backlog", err)
	case b.errno != 0:
		return 0, 0, s.opError("backlog", os.NewSyscallError(b.call, b.errno))
	}
	return int(b.queued), int(b.capacity), nil
}

// backlogOp is one Backlog: as socketOp's, its results live here so that
// the function handed to syscall.RawConn is made once, not per call.
type backlogOp struct {
	mu       sync.Mutex
	queued   int32 // the kernel writes a C int
	capacity int32
	call     string // the one that failed: "ioctl SIOCOUTQ" or "getsockopt SO_SNDBUF"
	errno    syscall.Errno
	fn       func(fd uintptr)
}

// query reads SIOCOUTQ and SO_SNDBUF of fd into op.
func (op *backlogOp) query(fd uintptr) {
	op.queued, op.capacity, op.call = 0, 0, ""
	_, _, op.errno = syscall.Syscall(unix.SYS_IOCTL, fd, unix.SIOCOUTQ, uintptr(unsafe.Pointer(&op.queued)))
	if op.errno != 0 {
		op.call = "ioctl SIOCOUTQ"
		return
	}
	size := uint32(unsafe.Sizeof(op.capacity))
	_, _, op.errno = syscall.Syscall6(unix.SYS_GETSOCKOPT, fd, unix.SOL_SOCKET, unix.SO_SNDBUF,
		uintptr(unsafe.Pointer(&op.capacity)), uintptr(unsafe.Pointer(&size)), 0)
	if op.errno != 0 {
		op.call = "getsockopt SO_SNDBUF"
	}
}
