package udpsocket

import (
	"net/netip"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Resolved reports whether the kernel holds a usable link-layer address
// for the IPv4 address a (an ARP entry that is complete: reachable, stale
// or permanent), on the socket's interface when it is bound to one, else
// on the interface the route to a takes. A datagram to such an address
// leaves at once: it cannot wait in the send buffer for discovery, so a
// server may send it whatever Backlog says. An address with no entry, or
// one whose discovery is still under way, is not resolved; neither is any
// IPv6 address (it reads the ARP table, ioctl SIOCGARP). It allocates
// nothing.
func (s *Socket) Resolved(a netip.Addr) bool {
	a = a.Unmap()
	if !a.Is4() || s.family != unix.AF_INET || s.closed.Load() {
		return false
	}
	op := &s.arp
	op.mu.Lock()
	defer op.mu.Unlock()
	op.req = arpreq{pa: unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: a.As4()}}
	copy(op.req.dev[:len(op.req.dev)-1], s.iface)
	if err := s.raw.Control(op.fn); err != nil || op.errno != 0 {
		return false // ENXIO: no entry
	}
	return op.req.flags&atfComplete != 0
}

// atfComplete is ATF_COM: the entry holds a link-layer address.
const atfComplete = 0x02

// arpreq is struct arpreq of <net/if_arp.h>.
type arpreq struct {
	pa      unix.RawSockaddrInet4 // struct sockaddr arp_pa
	ha      [16]byte              // struct sockaddr arp_ha
	flags   int32
	netmask [16]byte // struct sockaddr arp_netmask
	dev     [16]byte
}

// arpOp is one Resolved: its request lives here so that neither it nor
// the function handed to syscall.RawConn is made per call.
type arpOp struct {
	mu    sync.Mutex
	req   arpreq
	errno syscall.Errno
	fn    func(fd uintptr)
}

func (op *arpOp) get(fd uintptr) {
	_, _, op.errno = syscall.Syscall(unix.SYS_IOCTL, fd, unix.SIOCGARP, uintptr(unsafe.Pointer(&op.req)))
}
