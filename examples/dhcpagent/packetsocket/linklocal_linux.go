package packetsocket

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// addrSource asks the kernel for an interface's IPv6 link-local address
// through a route netlink socket opened by Listen. Opened there, it asks
// the network namespace the packet socket lives in, whichever thread (in
// whichever namespace) a later WriteTo runs on; net.InterfaceByIndex
// would ask the calling thread's. Not safe for concurrent use (the
// sender's mutex).
type addrSource struct {
	fd      int
	ifindex int
	seq     uint32
	buf     []byte
}

// openAddrSource opens the netlink socket, non-blocking: the kernel
// answers a dump request within the sendto and each following part within
// the recvfrom that made room for it, so a read that would wait means the
// answer is not coming, and linkLocal gives up rather than wait.
func openAddrSource(ifindex int) (*addrSource, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, os.NewSyscallError("socket(AF_NETLINK)", err)
	}
	// The kernel then dumps the addresses of ifindex only (Linux 4.20 and
	// later; linkLocal filters anyway).
	_ = unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_GET_STRICT_CHK, 1)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("bind(AF_NETLINK)", err)
	}
	// A part of a dump is at most 32 KiB: the kernel sizes it after the
	// reader's buffer, up to that.
	return &addrSource{fd: fd, ifindex: ifindex, buf: make([]byte, 64<<10)}, nil
}

// linkLocal is the first usable (neither tentative nor failed duplicate
// address detection) IPv6 link-local address of the interface, in the
// order the kernel lists them, or the zero Addr if it has none. It
// allocates (netlink parsing), so the sender calls it rarely.
func (a *addrSource) linkLocal() (netip.Addr, error) {
	a.seq++
	req := struct {
		hdr unix.NlMsghdr
		msg unix.IfAddrmsg
	}{
		hdr: unix.NlMsghdr{Type: unix.RTM_GETADDR, Flags: unix.NLM_F_REQUEST | unix.NLM_F_DUMP, Seq: a.seq},
		msg: unix.IfAddrmsg{Family: unix.AF_INET6, Index: uint32(a.ifindex)},
	}
	req.hdr.Len = uint32(unsafe.Sizeof(req))
	b := unsafe.Slice((*byte)(unsafe.Pointer(&req)), unsafe.Sizeof(req))
	if err := unix.Sendto(a.fd, b, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return netip.Addr{}, os.NewSyscallError("sendto(RTM_GETADDR)", err)
	}
	var found netip.Addr
	for {
		n, _, err := unix.Recvfrom(a.fd, a.buf, 0)
		if err != nil {
			return netip.Addr{}, os.NewSyscallError("recvfrom(RTM_GETADDR)", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(a.buf[:n])
		if err != nil {
			return netip.Addr{}, fmt.Errorf("RTM_GETADDR: %w", err)
		}
		for _, m := range msgs {
			if m.Header.Seq != a.seq {
				continue // the rest of a dump an earlier call gave up on
			}
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return found, nil
			case unix.NLMSG_ERROR:
				if len(m.Data) >= 4 {
					if e := int32(binary.NativeEndian.Uint32(m.Data)); e != 0 {
						return netip.Addr{}, os.NewSyscallError("RTM_GETADDR", syscall.Errno(-e))
					}
				}
				return found, nil
			case unix.RTM_NEWADDR:
				if ll := a.usable(&m); ll.IsValid() && !found.IsValid() {
					found = ll
				}
			}
		}
	}
}

// usable is the address of m if m is a usable link-local address of the
// interface, else the zero Addr.
func (a *addrSource) usable(m *syscall.NetlinkMessage) netip.Addr {
	if len(m.Data) < unix.SizeofIfAddrmsg {
		return netip.Addr{}
	}
	ifa := (*unix.IfAddrmsg)(unsafe.Pointer(&m.Data[0]))
	if ifa.Family != unix.AF_INET6 || int(ifa.Index) != a.ifindex {
		return netip.Addr{}
	}
	attrs, err := syscall.ParseNetlinkRouteAttr(m)
	if err != nil {
		return netip.Addr{}
	}
	flags := uint32(ifa.Flags)
	var addr netip.Addr
	for _, at := range attrs {
		switch {
		case at.Attr.Type == unix.IFA_FLAGS && len(at.Value) == 4:
			flags = binary.NativeEndian.Uint32(at.Value) // all the flags, the 8-bit field's too
		case at.Attr.Type == unix.IFA_ADDRESS && len(at.Value) == 16:
			addr = netip.AddrFrom16([16]byte(at.Value))
		}
	}
	if !addr.IsLinkLocalUnicast() || flags&(unix.IFA_F_TENTATIVE|unix.IFA_F_DADFAILED) != 0 {
		return netip.Addr{}
	}
	return addr
}

func (a *addrSource) close() error { return unix.Close(a.fd) }
