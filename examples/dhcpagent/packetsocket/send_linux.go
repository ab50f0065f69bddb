package packetsocket

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// lookupEvery is how often WriteTo looks again for the interface's
// link-local address while it has none (see sender.source).
const lookupEvery = time.Second

// sender is the Socket's sending half. Its mutex is its own, not the
// reader's: a write never waits for a read to find a datagram, nor a read
// for a write.
type sender struct {
	mu  sync.Mutex // one write at a time uses the fields below
	buf [ethernetMTU]byte
	pkt []byte                 // what send sends: buf cut to the packet
	sa  unix.SockaddrLinklayer // where: the interface, the destination MAC
	err error                  // what send's sendto returned
	fn  func(fd uintptr) bool  // send, made once

	ll         netip.Addr  // the interface's link-local address, once known
	source     *addrSource // open while ll is not known, to look again
	lastLookup time.Time
}

// The errors of the sendto failures a caller branches on, made once, so
// that a flood of replies dropped for want of room allocates nothing
// either. EMSGSIZE: the interface's MTU is below the 1,500 bytes
// checkWrite allows.
var (
	errAgain   = fmt.Errorf("packetsocket: write: %w: %w", ErrWouldBlock, unix.EAGAIN)
	errNoBufs  = fmt.Errorf("packetsocket: write: %w: %w", ErrWouldBlock, unix.ENOBUFS)
	errMsgSize = fmt.Errorf("packetsocket: write: %w: %w", ErrTooLarge, unix.EMSGSIZE)
)

// initSender prepares s's sender at Listen and looks for the link-local
// address a first time: a socket whose interface has none yet works, and
// WriteTo looks again.
func (s *Socket) initSender() error {
	w := &s.w
	w.sa = unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IPV6), Ifindex: s.ifindex, Halen: 6}
	w.fn = w.send
	src, err := openAddrSource(s.ifindex)
	if err != nil {
		return err
	}
	w.source = src
	return w.lookup(time.Now())
}

// lookup asks for the link-local address, and once found, closes the
// netlink socket, for good.
func (w *sender) lookup(now time.Time) error {
	w.lastLookup = now
	ll, err := w.source.linkLocal()
	if err != nil || !ll.IsValid() {
		return err
	}
	w.ll = ll
	err = w.source.close()
	w.source = nil
	return err
}

// WriteTo sends payload as one UDP datagram from the interface's IPv6
// link-local address (LinkLocal), port 547 (ServerPort), to dst (an IPv6
// address, its zone ignored, and port), in an Ethernet frame to dstMAC on
// the socket's interface. It never asks the neighbour discovery of dst:
// the frame goes to dstMAC, the source MAC of the frame being answered,
// so no reply waits for a neighbour that may not exist. It never waits
// either: when the kernel has no room for the frame at once, it returns
// an error wrapping ErrWouldBlock, and the caller drops the reply. It
// returns len(payload) when the frame is handed to the interface (not
// that it arrived), and otherwise an error wrapping ErrTooLarge (more
// than 1,452 bytes, or the interface's MTU is smaller than the frame),
// ErrNoLinkLocal (the interface has none: WriteTo looks for one again, at
// most once a second, so an address added later is used), net.ErrClosed
// (after Close), or the kernel's (ENETDOWN); a dst that is IPv4,
// IPv4-mapped, ::, or port 0 is refused too. It is safe to call
// concurrently with Read (writes are serialized among themselves) and
// allocates nothing, save on the error paths that name dst and in the
// look-ups of a missing link-local address.
func (s *Socket) WriteTo(payload []byte, dst netip.AddrPort, dstMAC [6]byte) (int, error) {
	if s.closed.Load() {
		return 0, fmt.Errorf("packetsocket: write: %w", net.ErrClosed)
	}
	if err := checkWrite(payload, dst); err != nil {
		return 0, err
	}
	w := &s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ll.IsValid() {
		if w.source == nil { // Close closed it
			return 0, fmt.Errorf("packetsocket: write: %w", net.ErrClosed)
		}
		if now := time.Now(); now.Sub(w.lastLookup) >= lookupEvery {
			if err := w.lookup(now); err != nil {
				return 0, fmt.Errorf("packetsocket: write to %s: looking for the link-local address: %w", dst, err)
			}
		}
		if !w.ll.IsValid() {
			return 0, fmt.Errorf("packetsocket: write to %s on interface %d: %w", dst, s.ifindex, ErrNoLinkLocal)
		}
	}
	w.pkt = buildDatagram(w.buf[:], netip.AddrPortFrom(w.ll, ServerPort), dst, payload)
	copy(w.sa.Addr[:], dstMAC[:])
	if err := s.raw.Write(w.fn); err != nil {
		if s.closed.Load() {
			return 0, fmt.Errorf("packetsocket: write: %w", net.ErrClosed)
		}
		return 0, fmt.Errorf("packetsocket: write: %w", err)
	}
	switch w.err {
	case nil:
		return len(payload), nil
	case unix.EAGAIN:
		return 0, errAgain
	case unix.ENOBUFS:
		return 0, errNoBufs
	case unix.EMSGSIZE:
		return 0, errMsgSize
	}
	return 0, sendError(dst, dstMAC, w.err)
}

// sendError is the error of a sendto that failed otherwise. A function of
// its own so that dstMAC, which the message takes the address of, escapes
// to the heap here only, not in every WriteTo.
func sendError(dst netip.AddrPort, dstMAC [6]byte, err error) error {
	return fmt.Errorf("packetsocket: write to %s at %s: %w", dst, net.HardwareAddr(dstMAC[:]), os.NewSyscallError("sendto", err))
}

// send is the sendto of w.pkt to w.sa, which must not wait: the socket is
// blocking (for reads), so MSG_DONTWAIT.
func (w *sender) send(fd uintptr) bool {
	w.err = unix.Sendto(int(fd), w.pkt, unix.MSG_DONTWAIT, &w.sa)
	return true
}

// LinkLocal is the address WriteTo sends from: the interface's IPv6
// link-local address, found at Listen or by a later WriteTo, or the zero
// Addr while it has none.
func (s *Socket) LinkLocal() netip.Addr {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return s.w.ll
}

// closeSender closes the netlink socket if it is still open (Close).
func (s *Socket) closeSender() error {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if s.w.source == nil {
		return nil
	}
	err := s.w.source.close()
	s.w.source = nil
	return err
}
