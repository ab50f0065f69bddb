package udpsocket

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Socket is a UDP socket for Serve that blocks in the kernel while it
// waits for a request, as a C server's does, instead of parking in Go's
// network poller. Through the poller, a read that finds nothing parks the
// goroutine, a thread waits in epoll_wait and the scheduler wakes threads
// to run it again: under perfdhcp at 5,000 exchanges/s the agent switched
// context 4.5 times per exchange that way, and 2.1 times on a Socket (with
// Serve's periodic yield), with 43% less system time (see
// docs/performance.md). Writes stay out of the poller too: a socket in it
// reports each sent datagram's freed buffer space as an EPOLLOUT edge,
// which wakes the thread waiting in epoll_wait once per reply. Reads and
// writes allocate nothing (but for their errors).
//
// Writes never wait (MSG_DONTWAIT), reads do. A datagram holds its share
// of the send buffer (SO_SNDBUF, 212,992 bytes by default) until it
// leaves, and one to an on-link address whose neighbour discovery (ARP
// for IPv4) never completes waits in the kernel's neighbour queue until
// discovery gives up, about 3 s later. A host on the link can so fill the
// buffer, asking for replies to addresses that do not exist (a SOLICIT
// from a made-up link-local source, a REQUEST with a made-up ciaddr): a
// blocking write would then hold the serving goroutine ~3 s each time,
// and nothing else would be answered. Instead WriteToUDPAddrPort returns
// an error wrapping ErrWouldBlock at once and the reply is lost, and
// Backlog tells how full the buffer is, so that the server can keep such
// replies to part of it.
//
// A Socket speaks one family: IPv4 ([Listen]) or IPv6 ([ListenIPv6],
// [ListenIPv6Group]).
//
// A Socket is safe for concurrent use; a read holds one OS thread while it
// waits, which is why Serve reads from one goroutine. Close wakes a
// waiting read (shutdown(2)), which then returns an error wrapping
// net.ErrClosed, as do later reads, writes and Backlog. The zero Socket
// is not usable; the Listen functions make one.
type Socket struct {
	file    *os.File
	raw     syscall.RawConn
	local   netip.AddrPort
	family  int    // unix.AF_INET or unix.AF_INET6
	iface   string // the interface the socket is bound to, "" for none
	ifindex uint32 // its index: the zone of a link-local destination
	closed  atomic.Bool

	rmu  sync.Mutex // guards read: one read at a time uses its fields
	read socketOp
	wmu  sync.Mutex
	writ socketOp
	back backlogOp // guarded by its mu
	arp  arpOp     // guarded by its mu
}

// socketOp is one recvfrom or sendto: its arguments and results live here
// so that the function handed to syscall.RawConn is made once, not per
// packet.
type socketOp struct {
	b     []byte
	sa    unix.RawSockaddrInet6 // or a sockaddr_in at its start (AF_INET)
	salen uintptr               // of the address sendto passes
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
}

// Listen binds a UDP socket on addr (the agent binds 0.0.0.0:67) that
// receives only what arrives on the network interface iface
// (SO_BINDTODEVICE, which needs CAP_NET_RAW; "" for every interface) and
// may send to the broadcast address. Port 0 picks a free port (see
// LocalAddr). SetReceiveBuffer sizes its receive buffer.
func Listen(iface string, addr netip.AddrPort) (*Socket, error) {
	ip := addr.Addr().Unmap()
	if !ip.Is4() {
		return nil, fmt.Errorf("udpsocket: listen on %s: %w", addr, ErrNotIPv4)
	}
	// Blocking (no SOCK_NONBLOCK): os.NewFile then leaves it out of the
	// network poller, and each read waits in the kernel.
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP)
	if err != nil {
		return nil, fmt.Errorf("udpsocket: socket: %w", err)
	}
	fail := func(what string, err error) (*Socket, error) {
		unix.Close(fd)
		return nil, fmt.Errorf("udpsocket: listen on %s (interface %q): %s: %w", addr, iface, what, err)
	}
	for _, opt := range []int{unix.SO_BROADCAST, unix.SO_REUSEADDR} {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, opt, 1); err != nil {
			return fail("setsockopt", err)
		}
	}
	if iface != "" {
		if err := unix.BindToDevice(fd, iface); err != nil {
			return fail("SO_BINDTODEVICE", err)
		}
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: ip.As4(), Port: int(addr.Port())}); err != nil {
		return fail("bind", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	in4, _ := sa.(*unix.SockaddrInet4)
	if in4 == nil {
		return fail("getsockname", fmt.Errorf("%T is not IPv4", sa))
	}
	return newSocket(fd, unix.AF_INET, iface, netip.AddrPortFrom(netip.AddrFrom4(in4.Addr), uint16(in4.Port)))
}

// newSocket wraps the bound blocking socket fd.
func newSocket(fd, family int, iface string, local netip.AddrPort) (*Socket, error) {
	s := &Socket{file: os.NewFile(uintptr(fd), "dhcp-socket"), family: family, iface: iface, local: local}
	if iface != "" {
		ifi, err := net.InterfaceByName(iface)
		if err != nil {
			s.file.Close()
			return nil, fmt.Errorf("udpsocket: interface %q: %w", iface, err)
		}
		s.ifindex = uint32(ifi.Index)
	}
	var err error
	if s.raw, err = s.file.SyscallConn(); err != nil {
		s.file.Close()
		return nil, err
	}
	s.read.fn = s.read.recvfrom
	s.writ.fn = s.writ.sendto
	s.back.fn = s.back.query
	s.arp.fn = s.arp.get
	return s, nil
}

// ReadFromUDPAddrPort waits for a datagram, copies it into b and returns
// its length and its sender. A datagram longer than b is cut short.
func (s *Socket) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	op := &s.read
	op.b = b
	for {
		err := s.raw.Read(op.fn)
		switch {
		case s.closed.Load():
			return 0, netip.AddrPort{}, s.opError("read", net.ErrClosed)
		case err != nil:
			return 0, netip.AddrPort{}, s.opError("read", err)
		case op.errno == unix.EINTR:
			continue
		case op.errno != 0:
			return 0, netip.AddrPort{}, s.opError("read", os.NewSyscallError("recvfrom", op.errno))
		}
		return op.n, op.addrPort(), nil
	}
}

// WriteToUDPAddrPort sends b to addr, of the socket's family. An IPv6
// link-local destination goes out on the zone's interface: the one the
// socket is bound to when the zone is empty or names it.
//
// It never waits for room in the send buffer: when the buffer is full
// (queued has reached capacity, see Backlog) it sends nothing and returns
// at once a *net.OpError wrapping ErrWouldBlock and the errno, EAGAIN (or
// ENOBUFS, the kernel's answer when it cannot get memory for the
// datagram: it is dropped alike). The buffer is shared: while it is full,
// a reply to a reachable address fails too, until the datagrams queued
// before it leave or are dropped (~3 s for an address that never
// answers). The caller drops the reply and counts it. After Close, the
// error wraps net.ErrClosed. It allocates nothing when it sends.
func (s *Socket) WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	op := &s.writ
	if err := s.destination(op, addr); err != nil {
		return 0, s.opError("write", err)
	}
	op.b = b
	for {
		err := s.raw.Write(op.fn)
		switch {
		case err == nil && op.errno == 0:
			return op.n, nil
		case s.closed.Load():
			// Between Close's shutdown(2) and close(2), sendto reports
			// EPIPE; after close(2), os reports its own "closed file".
			return 0, s.opError("write", net.ErrClosed)
		case err != nil:
			return 0, s.opError("write", err)
		case op.errno == unix.EINTR:
			continue
		case op.errno == unix.EAGAIN || op.errno == unix.ENOBUFS:
			return 0, s.opError("write", fmt.Errorf("%w: %w", ErrWouldBlock, os.NewSyscallError("sendto", op.errno)))
		}
		return 0, s.opError("write", os.NewSyscallError("sendto", op.errno))
	}
}

// recvfrom is one blocking recvfrom(2) into op.b; Go's syscall wrapper
// tells the scheduler the thread is blocked.
func (op *socketOp) recvfrom(fd uintptr) bool {
	op.sa = unix.RawSockaddrInet6{}
	size := uint32(unsafe.Sizeof(op.sa))
	var p unsafe.Pointer
	if len(op.b) > 0 {
		p = unsafe.Pointer(&op.b[0])
	}
	n, _, errno := syscall.Syscall6(unix.SYS_RECVFROM, fd, uintptr(p), uintptr(len(op.b)), 0,
		uintptr(unsafe.Pointer(&op.sa)), uintptr(unsafe.Pointer(&size)))
	op.n, op.errno = int(n), errno
	return true
}

// sendto is one sendto(2) of op.b that never waits: with MSG_DONTWAIT
// the kernel reports a full send buffer (EAGAIN) rather than sleep until
// it drains, which the descriptor, blocking for the reads' sake, would.
func (op *socketOp) sendto(fd uintptr) bool {
	var p unsafe.Pointer
	if len(op.b) > 0 {
		p = unsafe.Pointer(&op.b[0])
	}
	n, _, errno := syscall.Syscall6(unix.SYS_SENDTO, fd, uintptr(p), uintptr(len(op.b)), unix.MSG_DONTWAIT,
		uintptr(unsafe.Pointer(&op.sa)), op.salen)
	op.n, op.errno = int(n), errno
	return true
}

// Close stops the socket: a read waiting in it returns an error wrapping
// net.ErrClosed, as does any later read, write or Backlog, and the
// descriptor is closed once no read or write holds it.
func (s *Socket) Close() error {
	if s.closed.Swap(true) {
		return s.opError("close", net.ErrClosed)
	}
	// shutdown(2) wakes a reader blocked in recvfrom: close(2) alone would
	// not, and the descriptor stays open until that read returns. On an
	// unconnected UDP socket it reports ENOTCONN after waking it.
	s.raw.Control(func(fd uintptr) { unix.Shutdown(int(fd), unix.SHUT_RDWR) })
	return s.file.Close()
}

// LocalAddr is the address the socket is bound to, as a *net.UDPAddr.
func (s *Socket) LocalAddr() net.Addr { return net.UDPAddrFromAddrPort(s.local) }

// SyscallConn gives access to the descriptor, for socket options.
func (s *Socket) SyscallConn() (syscall.RawConn, error) { return s.raw, nil }

func (s *Socket) opError(op string, err error) error {
	network := "udp4"
	if s.family == unix.AF_INET6 {
		network = "udp6"
	}
	return &net.OpError{Op: op, Net: network, Addr: s.LocalAddr(), Err: err}
}
