package udpsocket

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// backlog is what Backlog returns, for cmp.Diff.
type backlog struct{ Queued, Capacity int }

// TestBacklog reads Backlog on a fresh loopback Socket of each family:
// nothing is queued, capacity is net.core.wmem_default (the kernel's
// SO_SNDBUF for a new socket) or, once SO_SNDBUF is set, twice what was
// set, and a reading allocates nothing.
func TestBacklog(t *testing.T) {
	wmemDefault := sysctlInt(t, "/proc/sys/net/core/wmem_default")
	tests := []struct {
		name   string
		sndbuf int // SO_SNDBUF to set; 0: leave the default
		want   backlog
	}{
		{"default buffer", 0, backlog{0, wmemDefault}},
		{"SO_SNDBUF 32 KiB", 32 << 10, backlog{0, 64 << 10}}, // the kernel doubles it
	}
	for _, f := range families {
		for _, tt := range tests {
			t.Run(f.name+"/"+tt.name, func(t *testing.T) {
				s := f.listenLoopback(t)
				if tt.sndbuf != 0 {
					setSendBuffer(t, s, tt.sndbuf)
				}
				queued, capacity, err := s.Backlog()
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, backlog{queued, capacity}); diff != "" {
					t.Errorf("Backlog (-want +got):\n%s", diff)
				}
				if allocs := testing.AllocsPerRun(100, func() {
					if _, _, err := s.Backlog(); err != nil {
						t.Fatal(err)
					}
				}); allocs != 0 {
					t.Errorf("Backlog: %v allocations, want 0", allocs)
				}
			})
		}
	}
}

// TestClosedSocketErrors: after Close, Backlog and WriteToUDPAddrPort
// return a *net.OpError naming the operation and wrapping net.ErrClosed,
// in each family.
func TestClosedSocketErrors(t *testing.T) {
	tests := []struct {
		name string
		op   string // the *net.OpError's Op
		do   func(s *Socket) error
	}{
		{"Backlog", "backlog", func(s *Socket) error {
			_, _, err := s.Backlog()
			return err
		}},
		{"WriteToUDPAddrPort", "write", func(s *Socket) error {
			_, err := s.WriteToUDPAddrPort([]byte("x"), s.LocalAddr().(*net.UDPAddr).AddrPort())
			return err
		}},
	}
	for _, f := range families {
		for _, tt := range tests {
			t.Run(f.name+"/"+tt.name, func(t *testing.T) {
				s := f.listenLoopback(t)
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				err := tt.do(s)
				var opErr *net.OpError
				if !errors.As(err, &opErr) || opErr.Op != tt.op || !errors.Is(err, net.ErrClosed) {
					t.Errorf("after Close: %v, want a *net.OpError %q wrapping net.ErrClosed", err, tt.op)
				}
			})
		}
	}
}

// setSendBuffer sets SO_SNDBUF on s.
func setSendBuffer(t *testing.T, s *Socket, bytes int) {
	t.Helper()
	raw, err := s.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var setErr error
	if err := raw.Control(func(fd uintptr) {
		setErr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF, bytes)
	}); err != nil {
		t.Fatal(err)
	}
	if setErr != nil {
		t.Fatalf("SO_SNDBUF %d: %v", bytes, setErr)
	}
}

// sysctlInt reads the integer in the file path of /proc/sys.
func sysctlInt(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return n
}
