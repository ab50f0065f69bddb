package e2e

import (
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// Inside an agent's namespace, whose loopback is its own.
const (
	agentProbes  = "127.0.0.1:8081"
	agentMetrics = "127.0.0.1:8080"
	// stateWait is the agent's -state-wait: how long a start without an
	// API server waits before it serves its last-good copy.
	stateWait = 2 * time.Second
	// killMargin: a request sent less than this before an agent's
	// SIGKILL may find it dead, and counts as sent to no running agent.
	killMargin = 250 * time.Millisecond
)

// agentProc is one replica of the agent: its namespace on the segment,
// the state folder it keeps across restarts, and the times it was up.
type agentProc struct {
	s        *system
	name     string
	h        host
	addr4    netip.Addr // its own IPv4 address on the segment
	stateDir string
	extra    []string // flags beyond the common ones
	proc     *process
	up       []interval
	// firstReply is, for the last start, how long after it the agent
	// sent its first reply, as its -v 1 log says; 0: none yet.
	starts int
}

// interval is [From, To): an agent ready and not yet killed; To is zero
// while it runs.
type interval struct{ From, To time.Time }

// newAgent attaches the agent's namespace to the segment with cidrs and
// relays its loopback's apiPort to the API server.
func (s *system) newAgent(name string, cidrs ...string) *agentProc {
	s.t.Helper()
	a := &agentProc{s: s, name: name, h: s.seg.attach(name, agentMAC(len(s.agents)), cidrs...), stateDir: s.t.TempDir()}
	a.addr4 = netip.MustParsePrefix(cidrs[0]).Addr()
	u, err := url.Parse(s.cp.cfg.Host)
	if err != nil {
		s.t.Fatal(err)
	}
	forward(s.t, a.h.NS, apiPort, u.Host)
	return a
}

func agentMAC(i int) string { return "52:54:00:a0:00:0" + string(rune('1'+i)) }

// start runs the agent's binary in its namespace and waits (up to 60 s)
// for its /readyz; it returns how long that took.
func (a *agentProc) start() time.Duration {
	s := a.s
	s.t.Helper()
	kc := kubetest.Kubeconfig(s.t, s.agentCfg, "vmnetkit-dhcpagent")
	args := []string{s.binAgent, "-ippool", poolNS + "/" + poolName, "-kubeconfig", kc, "-iface", a.h.Iface,
		"-state-dir", a.stateDir, "-state-wait", stateWait.String(),
		"-health-probe-bind-address", agentProbes, "-metrics-bind-address", agentMetrics, "-summary", "0", "-v", "1"}
	a.proc = startProcess(s.t, a.name, a.h.NS, append(args, a.extra...)...)
	a.starts++
	hc := nsHTTP(a.h.NS)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := hc.Get("http://" + agentProbes + "/readyz"); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if a.proc.exited() || time.Now().After(deadline) {
			s.t.Fatalf("%s not ready within 60s (exited: %v); log:\n%s", a.name, a.proc.exited(), a.proc.log)
		}
	}
	a.up = append(a.up, interval{From: time.Now()})
	return time.Since(a.proc.started)
}

// kill sends the agent SIGKILL.
func (a *agentProc) kill() {
	if a.proc == nil || a.proc.exited() {
		return
	}
	if n := len(a.up); n > 0 && a.up[n-1].To.IsZero() {
		a.up[n-1].To = time.Now()
	}
	a.proc.kill()
}

// upAt reports whether the agent was ready at t and not killed within
// killMargin after it.
func (a *agentProc) upAt(t time.Time) bool {
	for _, iv := range a.up {
		if !t.Before(iv.From) && (iv.To.IsZero() || t.Before(iv.To.Add(-killMargin))) {
			return true
		}
	}
	return false
}

// replyLine matches a -v 1 line of a DHCPv4 or DHCPv6 reply the agent
// sent, with klog's time of day.
var replyLine = regexp.MustCompile(`(?m)^[IW]\d{4} (\d\d:\d\d:\d\d\.\d{6}) .*"(OFFER|ACK|NAK|ADVERTISE|REPLY)"`)

// firstReply is when the agent's current run logged its first reply;
// zero: none yet.
func (a *agentProc) firstReply() time.Time {
	m := replyLine.FindStringSubmatch(a.proc.log.String())
	if m == nil {
		return time.Time{}
	}
	started := a.proc.started
	tod, err := time.ParseInLocation("15:04:05.000000", m[1], time.Local)
	if err != nil {
		return time.Time{}
	}
	y, mo, d := started.Date()
	return time.Date(y, mo, d, tod.Hour(), tod.Minute(), tod.Second(), tod.Nanosecond(), time.Local)
}

// metrics is the agent's /metrics text now ("" when it does not answer).
func (a *agentProc) metrics() string {
	resp, err := nsHTTP(a.h.NS).Get("http://" + agentMetrics + "/metrics")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// lastGoodExists reports whether the agent has written its last-good copy.
func (a *agentProc) lastGoodExists() bool {
	_, err := os.Stat(filepath.Join(a.stateDir, "pool.last-good"))
	return err == nil
}
