package packetsocket

import (
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// wakeEvery is how long a read waits in the kernel (poll(2)) before it
// looks whether Close was called: shutdown(2), which wakes a UDP socket's
// reader, does nothing on a packet socket, so an idle read returns this
// often and goes back to wait.
const wakeEvery = 200 * time.Millisecond

// Socket receives the DHCPv6 messages multicast to ff02::1:2 port 547 on
// one interface, and sends the replies to them (see the package
// documentation). A Socket is safe for concurrent use; reads are
// serialized (one goroutine reads), so are writes, but a read and a write
// never wait for each other. The zero Socket is not usable; Listen makes
// one.
type Socket struct {
	file    *os.File
	raw     syscall.RawConn
	ifindex int
	closed  atomic.Bool
	bad     atomic.Uint64 // datagrams Read skipped for their checksum

	w sender // the sending half, with its own mutex

	mu   sync.Mutex // one read at a time uses the fields below
	ring *ring
	pfd  [1]unix.PollFd
	errn syscall.Errno         // what the last poll found pending
	fn   func(fd uintptr) bool // poll, made once
}

// Listen opens the packet socket on the Ethernet interface iface: a Linux
// AF_PACKET socket (SOCK_DGRAM, so reads start at the IPv6 header and the
// kernel reports the link-layer source in sockaddr_ll) bound to the
// interface, with a classic BPF filter that lets only IPv6 UDP datagrams
// to [ff02::1:2]:547 reach it, and a PACKET_MR_MULTICAST membership for
// 33:33:00:01:00:02 so that a NIC that filters multicast passes them. It
// needs CAP_NET_RAW.
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
	r, err := setupRing(fd)
	if err != nil {
		return fail("receive ring", err)
	}
	// 33:33:00:01:00:02 is ff02::1:2's Ethernet group address (RFC 2464).
	mreq := unix.PacketMreq{Ifindex: int32(ifi.Index), Type: unix.PACKET_MR_MULTICAST, Alen: 6,
		Address: [8]uint8{0x33, 0x33, 0x00, 0x01, 0x00, 0x02}}
	if err := unix.SetsockoptPacketMreq(fd, unix.SOL_PACKET, unix.PACKET_ADD_MEMBERSHIP, &mreq); err != nil {
		r.unmap()
		return fail("PACKET_ADD_MEMBERSHIP", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IPV6), Ifindex: ifi.Index}); err != nil {
		r.unmap()
		return fail("bind", err)
	}
	s := &Socket{file: os.NewFile(uintptr(fd), "dhcp6-packet-socket"), ifindex: ifi.Index, ring: r}
	if s.raw, err = s.file.SyscallConn(); err != nil {
		r.unmap()
		s.file.Close()
		return nil, err
	}
	s.fn = s.poll
	if err := s.initSender(); err != nil {
		s.Close()
		return nil, fmt.Errorf("packetsocket: listen on %q: the link-local address: %w", iface, err)
	}
	return s, nil
}

// Read waits for a datagram to [ff02::1:2]:547, copies its IPv6 packet
// into b and returns it as a Frame whose Payload aliases b. A packet
// longer than b is cut short and, its lengths no longer matching, skipped;
// b of 1,500 bytes holds whatever an Ethernet link carries. A datagram
// whose UDP checksum is wrong or zero is skipped and counted
// (BadChecksums), unless the kernel says it was already verified or is
// not computed yet. Datagrams
// arrive through the receive ring, a block at a time (see blockTimeout):
// one may wait there up to two milliseconds. After Close, a Read returns
// an error wrapping net.ErrClosed (within wakeEvery). It does not
// allocate.
//
// Read checks the checksum because the Ethernet frame check sequence
// covers one wire only, not the bridges and virtual NICs a frame crosses,
// and a datagram the kernel's UDP would have dropped must not reach the
// server either. The kernel has not verified it for a packet socket, but
// each frame of the ring says what it knows: TP_STATUS_CSUM_VALID, the
// device verified it; TP_STATUS_CSUMNOTREADY, the checksum is not
// computed yet, because the packet never left the host (sent by a local
// socket, or through a veth or a VM's tap with checksum offload, whose
// sending side leaves the sum to a device that never comes): Read takes
// both as they are, as the kernel's UDP does. Otherwise it computes the
// checksum over the IPv6 pseudo-header (RFC 8200 section 8.1).
func (s *Socket) Read(b []byte) (Frame, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.closed.Load() {
			return Frame{}, fmt.Errorf("packetsocket: read: %w", net.ErrClosed)
		}
		if !s.ring.ready() {
			if err := s.raw.Read(s.fn); err != nil {
				return Frame{}, fmt.Errorf("packetsocket: read: %w", err)
			}
			if s.errn != 0 {
				return Frame{}, fmt.Errorf("packetsocket: read: %w", os.NewSyscallError("poll", s.errn))
			}
			continue
		}
		pkt, sa, status := s.ring.frame()
		outgoing, mac, ifindex := sa.Pkttype == unix.PACKET_OUTGOING, sa.Addr, sa.Ifindex
		n := copy(b, pkt)
		s.ring.done()
		if outgoing {
			continue
		}
		var f Frame
		if err := parse(&f, b[:n], status); err != nil {
			if err == errChecksum {
				s.bad.Add(1)
			}
			continue
		}
		copy(f.SrcMAC[:], mac[:6])
		f.IfIndex = int(ifindex)
		return f, nil
	}
}

// poll waits in the kernel, at most wakeEvery, until the ring hands a
// block over; Read then looks again. An error pending on the socket (the
// interface went away: ENETDOWN) is taken into s.errn, for Read to
// return, as a recvfrom would have.
func (s *Socket) poll(fd uintptr) bool {
	s.errn = 0
	s.pfd[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	n, err := unix.Poll(s.pfd[:], int(wakeEvery/time.Millisecond))
	if err != nil || n == 0 || s.pfd[0].Revents&(unix.POLLERR|unix.POLLNVAL) == 0 {
		return true // EINTR, a timeout or a block: Read looks again
	}
	s.errn = unix.EBADF
	if s.pfd[0].Revents&unix.POLLERR != 0 {
		if e, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_ERROR); err == nil && e != 0 {
			s.errn = syscall.Errno(e)
		} else {
			s.errn = 0 // the error went meanwhile
		}
	}
	return true
}

// BadChecksums is how many datagrams Read skipped because their UDP
// checksum was wrong or zero, since Listen. It is safe to call from any
// goroutine, at any time.
func (s *Socket) BadChecksums() uint64 { return s.bad.Load() }

// IfIndex is the index of the interface the socket listens on.
func (s *Socket) IfIndex() int { return s.ifindex }

// Close stops the socket: a Read waiting in it returns an error wrapping
// net.ErrClosed within wakeEvery, and Close returns once it has, with the
// ring unmapped and the descriptor closed; a WriteTo after it (or during
// it) returns an error wrapping net.ErrClosed.
func (s *Socket) Close() error {
	if s.closed.Swap(true) {
		return fmt.Errorf("packetsocket: close: %w", net.ErrClosed)
	}
	s.mu.Lock()
	err := s.ring.unmap()
	s.mu.Unlock()
	if cerr := s.closeSender(); err == nil {
		err = cerr
	}
	if cerr := s.file.Close(); err == nil {
		err = cerr
	}
	return err
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// SyscallConn gives access to the descriptor, for socket options
// (udpsocket.SetReceiveBuffer).
func (s *Socket) SyscallConn() (syscall.RawConn, error) { return s.raw, nil }
