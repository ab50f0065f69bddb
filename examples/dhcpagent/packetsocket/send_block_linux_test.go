package packetsocket

import (
	"errors"
	"net/netip"
	"os/exec"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"golang.org/x/sys/unix"
)

// TestWriteToNeverBlocks sends as fast as it can (at most 2,000 frames,
// for at most 2 s) through a socket whose send buffer is the smallest the
// kernel allows, to a link that cannot take them, and checks that each
// WriteTo returns within 500 ms (a sendto that waited for room would wait
// for the link: a second or more here), with ErrWouldBlock for the reason
// the kernel gives on a veth: its send buffer full (EAGAIN) or the frame
// dropped at once (ENOBUFS).
func TestWriteToNeverBlocks(t *testing.T) {
	for _, tc := range []struct {
		name string
		mac  string
		hold func(t *testing.T, p *netnstest.Pair)
		// What a veth does: how many frames go (at least), and which
		// errno ErrWouldBlock wraps.
		minSent int
		errno   unix.Errno
	}{
		// tbf at 8 kbit/s lets one 1 KB frame out a second and holds the
		// rest, charged to the socket's send buffer: a few frames go,
		// then the buffer is full and sendto has no room (EAGAIN), long
		// before tbf's own limit (1 MB) would drop one (ENOBUFS).
		{"a qdisc holds the frames: EAGAIN", "52:54:00:10:00:08", func(t *testing.T, p *netnstest.Pair) {
			netnstest.RequireTool(t, "tc", "iproute2")
			if out, err := exec.Command("tc", "-n", p.ServerNS, "qdisc", "add", "dev", p.ServerIf, "root",
				"tbf", "rate", "8kbit", "burst", "1600", "limit", "1000000").CombinedOutput(); err != nil {
				t.Fatalf("tc qdisc add tbf: %v\n%s", err, out)
			}
		}, 1, unix.EAGAIN},
		// With its peer down, a veth (no queue) drops each frame as it
		// is sent and says so (NET_XMIT_DROP: ENOBUFS): no frame goes,
		// every WriteTo returns ErrWouldBlock at once.
		{"the peer is down: ENOBUFS", "52:54:00:10:00:09", func(t *testing.T, p *netnstest.Pair) {
			netnstest.IP(t, "-n", p.ClientNS, "link", "set", p.ClientIf, "down")
		}, 0, unix.ENOBUFS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newSendHosts(t, tc.mac, nil)
			tc.hold(t, h.p)
			raw, _ := h.ps.SyscallConn()
			var sockErr error
			raw.Control(func(fd uintptr) { sockErr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF, 0) })
			if sockErr != nil {
				t.Fatal(sockErr)
			}
			to := netip.AddrPortFrom(h.clientLL, 546)
			payload := make([]byte, 1000)
			var sent, blocked int
			var slowest time.Duration
			const bound = 500 * time.Millisecond // a blocked send waited 2.3 s; room for a loaded machine
			for start := time.Now(); sent+blocked < 2000 && time.Since(start) < 2*time.Second && slowest <= bound; {
				t0 := time.Now()
				_, err := h.ps.WriteTo(payload, to, h.mac)
				slowest = max(slowest, time.Since(t0))
				switch {
				case err == nil:
					sent++
				case errors.Is(err, ErrWouldBlock) && errors.Is(err, tc.errno):
					blocked++
				default:
					t.Fatalf("WriteTo after %d frames sent and %d refused: %v, want nil or ErrWouldBlock (%v)", sent, blocked, err, tc.errno)
				}
			}
			t.Logf("%d frames sent, %d would have blocked, the slowest WriteTo took %v", sent, blocked, slowest)
			if slowest > bound {
				t.Fatalf("a WriteTo took %v, want under %v", slowest, bound)
			}
			if sent < tc.minSent || blocked == 0 || (tc.minSent == 0 && sent != 0) {
				t.Errorf("%d frames sent and %d refused with ErrWouldBlock, want %d sent (at least) and the rest refused",
					sent, blocked, tc.minSent)
			}
			// A reply dropped for want of room allocates nothing either.
			var err error
			if allocs := testing.AllocsPerRun(50, func() { _, err = h.ps.WriteTo(payload, to, h.mac) }); allocs != 0 {
				t.Errorf("a WriteTo that would block allocated %.1f times, want 0", allocs)
			}
			if !errors.Is(err, ErrWouldBlock) {
				t.Errorf("the last WriteTo: %v, want ErrWouldBlock", err)
			}
		})
	}
}
