//go:build !linux

package packetsocket

import (
	"net/netip"
	"syscall"
)

// Socket is Linux only; elsewhere Listen fails.
type Socket struct{}

// Listen fails outside Linux with ErrUnsupported.
func Listen(iface string) (*Socket, error) { return nil, ErrUnsupported }

// Read is never reached: Listen fails.
func (s *Socket) Read(b []byte) (Frame, error) { return Frame{}, ErrUnsupported }

// WriteTo is never reached: Listen fails.
func (s *Socket) WriteTo(payload []byte, dst netip.AddrPort, dstMAC [6]byte) (int, error) {
	return 0, ErrUnsupported
}

// LinkLocal is never reached: Listen fails.
func (s *Socket) LinkLocal() netip.Addr { return netip.Addr{} }

// BadChecksums is never reached: Listen fails.
func (s *Socket) BadChecksums() uint64 { return 0 }

// IfIndex is never reached: Listen fails.
func (s *Socket) IfIndex() int { return 0 }

// Close is never reached: Listen fails.
func (s *Socket) Close() error { return ErrUnsupported }

// SyscallConn is never reached: Listen fails.
func (s *Socket) SyscallConn() (syscall.RawConn, error) { return nil, ErrUnsupported }
