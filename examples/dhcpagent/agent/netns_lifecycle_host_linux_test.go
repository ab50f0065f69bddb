package agent

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/udpsocket"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// scriptEvent is one run of the hook script.
type scriptEvent struct {
	name, kind string // the client's event name, and its kind (netnstest.Client4.kind)
	addr       string // the lease's address
	env        map[string]string
	at         time.Time
}

func (e scriptEvent) String() string {
	return fmt.Sprintf("%s %s %s", e.at.Format("15:04:05.000"), e.name, e.addr)
}

// sent is one reply the agent sent.
type sent struct {
	at     time.Time
	typ    dhcpv4.MessageType
	yiaddr string
	to     string
	msg    *dhcpv4.DHCPv4
}

func (s sent) String() string {
	return fmt.Sprintf("%s %s %s to %s", s.at.Format("15:04:05.000"), s.typ, s.yiaddr, s.to)
}

// received is one message the agent received.
type received struct {
	at  time.Time
	msg *dhcpv4.DHCPv4
}

// received are the messages of type typ the agent received in [from, to).
func (h *lifecycleHost) received(typ dhcpv4.MessageType, from, to time.Time) []received {
	h.recvMu.Lock()
	defer h.recvMu.Unlock()
	var out []received
	for _, r := range h.recv {
		if r.msg.MessageType() == typ && !r.at.Before(from) && r.at.Before(to) {
			out = append(out, r)
		}
	}
	return out
}

// sendLog records every reply the agent sends.
type sendLog struct {
	mu   sync.Mutex
	sent []sent
}

func (c *sendLog) record(m *dhcpv4.DHCPv4, _ []byte, to netip.AddrPort) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, sent{at: time.Now(), typ: m.MessageType(), yiaddr: m.YourIPAddr.String(), to: to.String(), msg: m})
}

func (c *sendLog) all() []sent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sent)
}

// lifecycleHost is the agent serving in one namespace of a pair and a
// real client running in the other.
type lifecycleHost struct {
	t      *testing.T
	c      netnstest.Client4
	pair   *netnstest.Pair
	agent  *Agent
	sends  *sendLog
	recvMu sync.Mutex
	recv   []received      // what the agent received
	logs   *logtest.Buffer // the agent's log
	dir    string
	output *logtest.Buffer
	seen   int // events already returned by next
	cmd    *exec.Cmd
	done   chan error
	server *udpsocket.Socket // the agent's socket (startFloodHost's)
}

// startLifecycle starts the agent on pool in a new pair of namespaces,
// with opts; the client is started by run.
func startLifecycle(t *testing.T, c netnstest.Client4, pool *poolsource.Pool, opts ...Option) *lifecycleHost {
	t.Helper()
	h := &lifecycleHost{t: t, c: c, dir: t.TempDir(), output: &logtest.Buffer{}}
	h.pair = netnstest.NewPair(t, dhcp4test.MACA, "10.77.0.2/24")
	logs := &logtest.Buffer{}
	h.logs = logs
	h.agent = newAgent(t, pool, logtest.Logger(logs, packetLevel), opts...)
	h.sends = &sendLog{}
	tap := &tapConn{
		Conn: listenIn(t, h.pair.ServerNS, h.pair.ServerIf),
		read: func(m *dhcpv4.DHCPv4) {
			h.recvMu.Lock()
			h.recv = append(h.recv, received{at: time.Now(), msg: m})
			h.recvMu.Unlock()
		},
		sent: h.sends.record,
	}
	serveIn(t, h.agent, tap)
	t.Cleanup(func() {
		h.stop()
		if t.Failed() {
			t.Logf("agent log:\n%s", logs)
			t.Logf("%s output:\n%s", c.Name, h.output)
			t.Logf("script events: %v", h.events())
			t.Logf("agent sent: %v", h.sends.all())
		}
	})
	if c.Setup != nil {
		c.Setup(t, h.dir)
	}
	script := filepath.Join(h.dir, "script")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(netnstest.Script4, h.dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// run starts the client, with its arguments changed by edit when it is
// not nil.
func (h *lifecycleHost) run(edit func([]string) []string) {
	h.t.Helper()
	args := h.c.Run(h.pair.ClientIf, filepath.Join(h.dir, "script"), h.dir)
	if edit != nil {
		args = edit(args)
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", h.pair.ClientNS}, args...)...)
	cmd.Stdout, cmd.Stderr = h.output, h.output
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.cmd, h.done = cmd, make(chan error, 1)
	go func() { h.done <- cmd.Wait() }()
}

// stop kills the client's whole process group, if it runs.
func (h *lifecycleHost) stop() {
	if h.cmd == nil {
		return
	}
	syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-h.done:
	case <-time.After(5 * time.Second):
		h.t.Errorf("%s did not exit within 5s of SIGKILL", h.c.Name)
	}
	h.cmd = nil
}

// events are the script's events so far, in order.
func (h *lifecycleHost) events() []scriptEvent {
	var evs []scriptEvent
	for _, e := range netnstest.ScriptEvents(h.dir) {
		evs = append(evs, scriptEvent{name: e.Env["EVENT"], kind: h.c.Kind(e.Env["EVENT"]),
			addr: normalize(e.Env[h.c.Vars[0]]), env: e.Env, at: e.At})
	}
	return evs
}

// next waits up to timeout for the next event of kind, past those next
// returned before, and returns it.
func (h *lifecycleHost) next(kind string, timeout time.Duration) scriptEvent {
	h.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		evs := h.events()
		for i := h.seen; i < len(evs); i++ {
			if evs[i].kind == kind {
				h.seen = i + 1
				return evs[i]
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: no %q event within %v; events: %v", h.c.Name, kind, timeout, evs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sentSince are the replies of type typ the agent sent after t.
func (h *lifecycleHost) sentSince(t time.Time, typ dhcpv4.MessageType) []sent {
	var out []sent
	for _, s := range h.sends.all() {
		if s.typ == typ && s.at.After(t) {
			out = append(out, s)
		}
	}
	return out
}

// checkOptions compares what the script saw of a lease with the ACK the
// agent sent for it: every option.
func (h *lifecycleHost) checkOptions(e scriptEvent) {
	h.t.Helper()
	var ack *dhcpv4.DHCPv4
	for _, s := range h.sends.all() {
		if s.typ == dhcpv4.MessageTypeAck && s.yiaddr == e.addr && !s.at.After(e.at) {
			ack = s.msg
		}
	}
	if ack == nil {
		h.t.Fatalf("%s bound %s, but the agent sent no ACK of it before", h.c.Name, e.addr)
	}
	opts, _, err := dhcp4test.ClientOptions(ack.ToBytes())
	if err != nil {
		h.t.Fatal(err)
	}
	want := map[string]string{
		"address": ack.YourIPAddr.String(), "mask": ipNames(opts[1]), "router": ipNames(opts[3]),
		"server id": ipNames(opts[54]), "lease": fmt.Sprint(int64(ack.IPAddressLeaseTime(0) / time.Second)),
		"dns": ipNames(opts[6]), "domain": string(opts[15]), "search": searchNames(h.t, opts[119]), "ntp": ipNames(opts[42]),
	}
	got := map[string]string{}
	for i, k := range []string{"address", "mask", "router", "server id", "lease", "dns", "domain", "search", "ntp"} {
		got[k] = normalize(e.env[h.c.Vars[i]])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		h.t.Errorf("%s read (+) other options than the ACK carried (-):\n%s", h.c.Name, diff)
	}
	for k, v := range got {
		if v == "" {
			h.t.Errorf("%s: option %s empty: the lab pool sets every option", h.c.Name, k)
		}
	}
}

// requireClient fails (in CI) or skips (elsewhere) when the client is not
// installed.
func requireClient(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed, and CI is set: make test installs it (as root, with apt-get)", name)
		}
		t.Skipf("%s is not installed (with CI set, this is a failure)", name)
	}
}

func lifecyclePool(allocated map[string]string) *poolsource.Pool {
	p := labtest.Pool(allocated)
	p.Spec.LeaseTime = poolsource.Duration(lifecycleLease)
	return p
}
