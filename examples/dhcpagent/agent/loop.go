package agent

import (
	"net"
	"net/netip"
	"time"
)

// maxMessage is the largest datagram Serve reads: the largest UDP payload
// over IPv4, so that no message is cut short whatever its size.
const maxMessage = 65507

// yieldEvery is how often Serve yields to the scheduler while it is busy:
// less than the 10 ms after which the runtime preempts a goroutine.
const yieldEvery = 5 * time.Millisecond

// yielder says when a loop that never blocks in the scheduler is due a
// yield: at most once per yieldEvery.
type yielder struct{ last time.Time }

// due reports whether yieldEvery has passed since the last yield, and if
// so counts now as the last.
func (y *yielder) due(now time.Time) bool {
	if now.Sub(y.last) < yieldEvery {
		return false
	}
	y.last = now
	return true
}

// Conn is the socket Serve answers on: a *Socket (what the agent's
// command listens with), or a *net.UDPConn. Addresses are values, so that
// reading a request and sending its reply allocate nothing.
type Conn interface {
	ReadFromUDPAddrPort(b []byte) (n int, addr netip.AddrPort, err error)
	WriteToUDPAddrPort(b []byte, addr netip.AddrPort) (int, error)
	Close() error
	LocalAddr() net.Addr
}
