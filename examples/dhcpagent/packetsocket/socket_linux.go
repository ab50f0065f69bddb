package packetsocket

import (
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// wakeEvery is how long a read waits in the kernel before it looks
// whether Close was called: shutdown(2), which wakes a UDP socket's
// reader, does nothing on a packet socket, so an idle read returns
// (SO_RCVTIMEO) this often and goes back to wait.
const wakeEvery = 200 * time.Millisecond

// Socket receives the DHCPv6 messages multicast to ff02::1:2 port 547 on
// one interface (see the package documentation). A Socket is safe for
// concurrent use, but reads are serialized: one goroutine reads. The zero
// Socket is not usable; Listen makes one.
type Socket struct {
	file    *os.File
	raw     syscall.RawConn
	ifindex int
	closed  atomic.Bool

	mu   sync.Mutex // one read at a time uses the fields below
	b    []byte
	sa   unix.RawSockaddrLinklayer
	n    int
	errn syscall.Errno
	fn   func(fd uintptr) bool // recvfrom, made once
}

// Listen opens the packet socket on the Ethernet interface iface. It needs
// CAP_NET_RAW.
func Listen(iface string) (*Socket, error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, fmt.Errorf("packetsocket: interface %q: %w", iface, err)
	}
	// Protocol 0: the socket receives nothing until it is bound, after
	// the filter is attached, so no unfiltered packet is ever queued.
	// Blocking (no SOCK_NONBLOCK), as udpsocket's: reads wait in the
	// kernel, not in Go's network poller.
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("packetsocket: socket(AF_PACKET): %w", err)
	}
	fail := func(what string, err error) (*Socket, error) {
		unix.Close(fd)
		return nil, fmt.Errorf("packetsocket: listen on %q: %s: %w", iface, what, err)
	}
	filter := make([]unix.SockFilter, len(filterProgram))
	for i, in := range filterProgram {
		filter[i] = unix.SockFilter{Code: in.code, Jt: in.jt, Jf: in.jf, K: in.k}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &prog); err != nil {
		return fail("SO_ATTACH_FILTER", err)
	}
	// The replies the server sends leave through this interface too; the
	// filter already drops them (port 546), this spares running it.
	// Kernels before 4.20 lack the option: the filter suffices.
	_ = unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_IGNORE_OUTGOING, 1)
	tv := unix.NsecToTimeval(wakeEvery.Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fail("SO_RCVTIMEO", err)
	}
	// 33:33:00:01:00:02 is ff02::1:2's Ethernet group address (RFC 2464).
	mreq := unix.PacketMreq{Ifindex: int32(ifi.Index), Type: unix.PACKET_MR_MULTICAST, Alen: 6,
		Address: [8]uint8{0x33, 0x33, 0x00, 0x01, 0x00, 0x02}}
	if err := unix.SetsockoptPacketMreq(fd, unix.SOL_PACKET, unix.PACKET_ADD_MEMBERSHIP, &mreq); err != nil {
		return fail("PACKET_ADD_MEMBERSHIP", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IPV6), Ifindex: ifi.Index}); err != nil {
		return fail("bind", err)
	}
	s := &Socket{file: os.NewFile(uintptr(fd), "dhcp6-packet-socket"), ifindex: ifi.Index}
	if s.raw, err = s.file.SyscallConn(); err != nil {
		s.file.Close()
		return nil, err
	}
	s.fn = s.recvfrom
	return s, nil
}

// Read waits for a datagram to [ff02::1:2]:547, copies its IPv6 packet
// into b and returns it as a Frame whose Payload aliases b. A packet
// longer than b is cut short and, its lengths no longer matching, skipped;
// b of 1,500 bytes holds whatever an Ethernet link carries. After Close, a
// Read returns an error wrapping net.ErrClosed (within wakeEvery). It does
// not allocate.
func (s *Socket) Read(b []byte) (Frame, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = b
	for {
		err := s.raw.Read(s.fn)
		switch {
		case s.closed.Load():
			return Frame{}, fmt.Errorf("packetsocket: read: %w", net.ErrClosed)
		case err != nil:
			return Frame{}, fmt.Errorf("packetsocket: read: %w", err)
		case s.errn == unix.EINTR || s.errn == unix.EAGAIN:
			continue // EAGAIN: SO_RCVTIMEO passed, look at closed again
		case s.errn != 0:
			return Frame{}, fmt.Errorf("packetsocket: read: %w", os.NewSyscallError("recvfrom", s.errn))
		case s.sa.Pkttype == unix.PACKET_OUTGOING:
			continue
		}
		var f Frame
		if parse(&f, b[:min(s.n, len(b))]) != nil {
			continue
		}
		copy(f.SrcMAC[:], s.sa.Addr[:6])
		f.IfIndex = int(s.sa.Ifindex)
		return f, nil
	}
}

// recvfrom is one blocking recvfrom(2) into s.b.
func (s *Socket) recvfrom(fd uintptr) bool {
	s.sa = unix.RawSockaddrLinklayer{}
	size := uint32(unsafe.Sizeof(s.sa))
	var p unsafe.Pointer
	if len(s.b) > 0 {
		p = unsafe.Pointer(&s.b[0])
	}
	n, _, errno := syscall.Syscall6(unix.SYS_RECVFROM, fd, uintptr(p), uintptr(len(s.b)), 0,
		uintptr(unsafe.Pointer(&s.sa)), uintptr(unsafe.Pointer(&size)))
	s.n, s.errn = int(n), errno
	return true
}

// IfIndex is the index of the interface the socket listens on.
func (s *Socket) IfIndex() int { return s.ifindex }

// Close stops the socket: a Read waiting in it returns an error wrapping
// net.ErrClosed within wakeEvery, and the descriptor is closed once no
// read holds it.
func (s *Socket) Close() error {
	if s.closed.Swap(true) {
		return fmt.Errorf("packetsocket: close: %w", net.ErrClosed)
	}
	return s.file.Close()
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// SyscallConn gives access to the descriptor, for socket options
// (udpsocket.SetReceiveBuffer).
func (s *Socket) SyscallConn() (syscall.RawConn, error) { return s.raw, nil }
