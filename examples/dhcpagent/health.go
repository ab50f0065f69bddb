package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/agent"
)

// stuckAfter is how long the handling of one request may take before
// /healthz calls the serve loop stuck. A reply takes microseconds; only a
// deadlock or a blocked send takes seconds.
const stuckAfter = 10 * time.Second

// Serve loop states besides "handling since t" (a UnixNano time, > 0).
const (
	loopStarting int64 = 0  // Serve has not read yet: the first load or the bind is under way
	loopWaiting  int64 = -1 // a read waits for the next request
	loopStopped  int64 = -2 // Serve returned
)

// serveLoop is the agent's serve loop as the probes see it. Serve reads
// through wrap's Conn, so the loop knows whether a read waits for the next
// request or a request is being handled, and since when: one atomic store
// and one clock read per request, no change to the agent.
//
// The zero serveLoop is a loop that has not started.
type serveLoop struct {
	state atomic.Int64
}

// wrap returns conn with its reads observed by l.
func (l *serveLoop) wrap(conn agent.Conn) agent.Conn { return loopConn{conn, l} }

// stop records that Serve returned.
func (l *serveLoop) stop() { l.state.Store(loopStopped) }

type loopConn struct {
	agent.Conn
	loop *serveLoop
}

func (c loopConn) ReadFromUDPAddrPort(b []byte) (int, netip.AddrPort, error) {
	c.loop.state.Store(loopWaiting)
	n, addr, err := c.Conn.ReadFromUDPAddrPort(b)
	c.loop.state.Store(time.Now().UnixNano())
	return n, addr, err
}

// alive is the liveness check (/healthz): nil while the process starts
// (the first load of the pool and the bind come first; a first load that
// fails ends the process) and while the serve loop waits for a request or
// has been handling one for less than stuckAfter; an error once the loop is
// stuck or stopped, which a restart repairs.
func (l *serveLoop) alive(now time.Time) error {
	switch s := l.state.Load(); {
	case s == loopStarting || s == loopWaiting:
		return nil
	case s == loopStopped:
		return errors.New("serve loop stopped")
	default:
		if busy := now.Sub(time.Unix(0, s)); busy > stuckAfter {
			return fmt.Errorf("serve loop stuck: handling one request for %s", busy.Round(time.Second))
		}
		return nil
	}
}

// ready is the readiness check (/readyz): nil once a lease table is loaded
// from the pool and the serve loop runs, so that a Service or a rollout
// counts the agent only when it answers. A later bad version of the pool
// leaves it ready: the last good table is still served.
func ready(a *agent.Agent, l *serveLoop) error {
	if a.Table() == nil {
		return errors.New("no lease table loaded from the pool yet")
	}
	switch l.state.Load() {
	case loopStarting:
		return errors.New("serve loop not started yet")
	case loopStopped:
		return errors.New("serve loop stopped")
	}
	return nil
}

// probeHandler serves /healthz and /readyz from the two checks: 200 "ok",
// or 503 and the check's error. While readyNote says something (the
// last-good copy is served, and how old it is), /readyz's 200 says
// "ok: " and the note.
func probeHandler(alive, ready func() error, readyNote func() string) http.Handler {
	mux := http.NewServeMux()
	notes := map[string]func() string{"/healthz": func() string { return "" }, "/readyz": readyNote}
	for path, check := range map[string]func() error{"/healthz": alive, "/readyz": ready} {
		mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			if err := check(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
			if note := notes[path](); note != "" {
				fmt.Fprintf(w, "ok: %s\n", note)
				return
			}
			fmt.Fprintln(w, "ok")
		})
	}
	return mux
}

// listenHTTP serves h on addr in the background and returns the address it
// bound and the function that closes the server.
func listenHTTP(addr string, h http.Handler) (bound string, closeFn func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return ln.Addr().String(), func() { srv.Close() }, nil
}
