package packetsocket

import (
	"errors"
	"fmt"
	"net/netip"
)

// The errors Socket.WriteTo returns that a caller branches on.
var (
	// ErrWouldBlock: the kernel had no room for the frame at once: the
	// socket's send buffer is full of frames the interface has not sent
	// yet (EAGAIN), or the interface's queue is full or dropped the frame
	// (ENOBUFS; a veth whose peer is down does so for each). WriteTo does
	// not wait; the caller drops the reply and counts it, as the network
	// would have.
	ErrWouldBlock = errors.New("no room to send without waiting")
	// ErrTooLarge: the datagram does not fit one Ethernet frame: more
	// than 1,452 bytes of payload (a 1,500-byte MTU less 48 bytes of IPv6
	// and UDP headers), or more than the interface's smaller MTU takes.
	ErrTooLarge = errors.New("datagram too large for one frame")
	// ErrNoLinkLocal: the interface has no usable IPv6 link-local address
	// to send from (none, or still tentative).
	ErrNoLinkLocal = errors.New("no IPv6 link-local address")
)

// errDestination: WriteTo sends to an IPv6 address and a port.
var errDestination = errors.New("not an IPv6 address and port")

// checkWrite is what WriteTo refuses before it looks at the socket: a
// payload too large, a destination that is not an IPv6 (nor an
// IPv4-mapped) address, the unspecified address, or port 0.
func checkWrite(payload []byte, dst netip.AddrPort) error {
	if len(payload) > maxPayload {
		return fmt.Errorf("packetsocket: write of %d bytes to %s: %w (%d bytes at most)", len(payload), dst, ErrTooLarge, maxPayload)
	}
	if a := dst.Addr(); !a.Is6() || a.Is4In6() || a.IsUnspecified() || dst.Port() == 0 {
		return fmt.Errorf("packetsocket: write to %q: %w", dst, errDestination)
	}
	return nil
}
