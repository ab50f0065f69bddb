package udpsocket

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The socket addresses of recvfrom and sendto: a sockaddr_in6, or a
// sockaddr_in at its start, in op.sa.

// destination writes addr into op as the sockaddr sendto passes.
func (s *Socket) destination(op *socketOp, addr netip.AddrPort) error {
	a := addr.Addr()
	var port [2]byte
	binary.BigEndian.PutUint16(port[:], addr.Port())
	if s.family == unix.AF_INET {
		a = a.Unmap()
		if !a.Is4() {
			return fmt.Errorf("%s: %w", addr, ErrNotIPv4)
		}
		sa := (*unix.RawSockaddrInet4)(unsafe.Pointer(&op.sa))
		*sa = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: a.As4()}
		*(*[2]byte)(unsafe.Pointer(&sa.Port)) = port
		op.salen = unsafe.Sizeof(*sa)
		return nil
	}
	if !a.Is6() || a.Is4In6() {
		return fmt.Errorf("%s: %w", addr, ErrNotIPv6)
	}
	scope, err := s.scope(a.Zone())
	if err != nil {
		return fmt.Errorf("%s: %w", addr, err)
	}
	op.sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: a.As16(), Scope_id: scope}
	*(*[2]byte)(unsafe.Pointer(&op.sa.Port)) = port
	op.salen = unsafe.Sizeof(op.sa)
	return nil
}

// scope is the interface index of an IPv6 zone: the bound interface's for
// "" or its name (without a lookup, so that a reply allocates nothing),
// else the zone's number or the index of the interface it names.
func (s *Socket) scope(zone string) (uint32, error) {
	if zone == "" || zone == s.iface {
		return s.ifindex, nil
	}
	if n, err := strconv.ParseUint(zone, 10, 32); err == nil {
		return uint32(n), nil
	}
	ifi, err := net.InterfaceByName(zone)
	if err != nil {
		return 0, err
	}
	return uint32(ifi.Index), nil
}

// addrPort is the sender recvfrom wrote into op.sa, without a zone.
func (op *socketOp) addrPort() netip.AddrPort {
	port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&op.sa.Port))[:])
	switch op.sa.Family {
	case unix.AF_INET:
		sa := (*unix.RawSockaddrInet4)(unsafe.Pointer(&op.sa))
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), port)
	case unix.AF_INET6:
		return netip.AddrPortFrom(netip.AddrFrom16(op.sa.Addr), port)
	}
	return netip.AddrPort{}
}
