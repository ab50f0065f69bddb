//go:build !linux

package packetsocket

import "syscall"

// Socket is Linux only; elsewhere Listen fails.
type Socket struct{}

// Listen fails outside Linux with ErrUnsupported.
func Listen(iface string) (*Socket, error) { return nil, ErrUnsupported }

// Read is never reached: Listen fails.
func (s *Socket) Read(b []byte) (Frame, error) { return Frame{}, ErrUnsupported }

// IfIndex is never reached: Listen fails.
func (s *Socket) IfIndex() int { return 0 }

// Close is never reached: Listen fails.
func (s *Socket) Close() error { return ErrUnsupported }

// SyscallConn is never reached: Listen fails.
func (s *Socket) SyscallConn() (syscall.RawConn, error) { return nil, ErrUnsupported }
