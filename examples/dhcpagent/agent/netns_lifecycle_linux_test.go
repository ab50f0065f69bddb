package agent

import (
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"

	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
)

// lifecycleLease is the lease time of the lifecycle tests: short, so that
// renewal (T1, 1/2) and rebinding (T2, 7/8) come within seconds, and far
// enough apart (4s against 7s) to tell which one the client was in.
const lifecycleLease = 8 * time.Second

// lifecycleClient is a real DHCP client the lifecycle tests run for a
// while, through renewals, on a hook script that configures the
// interface as a distribution's script does (so that replies unicast to
// ciaddr arrive) and records each event.
type lifecycleClient struct {
	name string
	// args run the client on iface in the foreground, with script as its
	// hook script; dir is for its configuration, lease and PID files.
	args func(iface, script, dir string) []string
	// kind names a script event: "bound" (a new lease), "renew" (the same
	// lease renewed), "nak" (the client dropped its address on a NAK), or
	// "" for events the tests do not follow.
	kind func(event string) string
	// vars name the script variables of: address, mask, router, server
	// identifier, lease time, name servers, domain name, search list, NTP.
	vars [9]string
	// setup writes what args needs into dir.
	setup func(t *testing.T, dir string)
	// minLease is the shortest lease the client keeps: a shorter one is
	// raised to it, and its T1 and T2 follow. udhcpc 1.35 renews 15s after
	// binding an 8s lease (measured), so it keeps 30s.
	minLease time.Duration
	// lostNaks is how many NAKs to a renewal the client may miss before
	// it hears one: udhcpc misses the reply to its unicast renewal (see
	// TestNetnsLifecycle) and hears the one to its broadcast retry.
	lostNaks int
}

var lifecycleClients = []lifecycleClient{
	{
		name: "udhcpc",
		args: func(iface, script, dir string) []string {
			// -t 2 -T 1 -A 1: retry DISCOVER quickly after a NAK or a silence.
			return []string{"udhcpc", "-f", "-i", iface, "-s", script, "-t", "2", "-T", "1", "-A", "1"}
		},
		kind: func(ev string) string {
			switch ev {
			case "bound":
				return "bound"
			case "renew":
				return "renew"
			case "nak":
				return "nak"
			}
			return ""
		},
		vars:     [9]string{"ip", "subnet", "router", "serverid", "lease", "dns", "domain", "search", "ntpsrv"},
		minLease: 30 * time.Second,
		lostNaks: 1,
	},
	{
		name: "dhclient",
		args: func(iface, script, dir string) []string {
			return []string{"dhclient", "-4", "-d", "-v", "-cf", filepath.Join(dir, "dhclient.conf"), "-sf", script,
				"-lf", filepath.Join(dir, "leases"), "-pf", filepath.Join(dir, "pid"), iface}
		},
		kind: func(ev string) string {
			switch ev {
			case "BOUND", "REBOOT":
				return "bound"
			case "RENEW", "REBIND":
				return "renew"
			case "EXPIRE": // dhclient reports a NAK as EXPIRE: drop the old binding
				return "nak"
			}
			return ""
		},
		vars: [9]string{"new_ip_address", "new_subnet_mask", "new_routers", "new_dhcp_server_identifier",
			"new_dhcp_lease_time", "new_domain_name_servers", "new_domain_name", "new_domain_search", "new_ntp_servers"},
		setup: func(t *testing.T, dir string) {
			// Debian's request list, and retries within a second or two
			// instead of dhclient's minutes.
			conf := `request subnet-mask, broadcast-address, routers, domain-name, domain-name-servers,
	domain-search, ntp-servers, dhcp-lease-time, dhcp-renewal-time, dhcp-rebinding-time;
timeout 60;
retry 1;
initial-interval 1;
backoff-cutoff 2;
`
			if err := os.WriteFile(filepath.Join(dir, "dhclient.conf"), []byte(conf), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	},
	{
		name: "dhcpcd",
		args: func(iface, script, dir string) []string {
			// -B: foreground; --noarp: no ARP probe of the offer (the
			// decline test wants it); dhcpcd configures the address itself.
			return []string{"dhcpcd", "-4", "-B", "-d", "--noarp", "-f", "/dev/null", "-c", script, iface}
		},
		kind: func(ev string) string {
			switch ev {
			case "BOUND", "REBOOT":
				return "bound"
			case "RENEW", "REBIND":
				return "renew"
			case "NAK":
				return "nak"
			}
			return ""
		},
		vars: [9]string{"new_ip_address", "new_subnet_mask", "new_routers", "new_dhcp_server_identifier",
			"new_dhcp_lease_time", "new_domain_name_servers", "new_domain_name", "new_domain_search", "new_ntp_servers"},
	},
}

// lifecycleScript is the clients' hook script: it configures the address
// of a lease and removes it when the lease ends, as the distributions'
// scripts do, and records each event with its environment in a file
// named by the time, so that the files sort in event order.
const lifecycleScript = `#!/bin/sh
ev="${reason:-$1}"
dev="${interface}"
case "$ev" in
bound|renew|BOUND|RENEW|REBIND|REBOOT)
	a="${ip:-$new_ip_address}"; m="${mask:-$new_subnet_mask}"
	if ! ip -4 addr show dev "$dev" | grep -q " $a/"; then
		ip addr flush dev "$dev"; ip addr add "$a/$m" dev "$dev"
	fi ;;
deconfig|nak|EXPIRE|FAIL|RELEASE|STOP|PREINIT)
	ip addr flush dev "$dev"; ip link set "$dev" up ;;
esac
f=%[1]q/ev.$(date +%%s%%N).$$
{ echo "EVENT=$ev"; env; } > "$f.tmp" && mv "$f.tmp" "$f"
exit 0
`

// scriptEvent is one run of the hook script.
type scriptEvent struct {
	name, kind string // the client's event name, and its kind (lifecycleClient.kind)
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
	c      lifecycleClient
	pair   *netnsPair
	agent  *Agent
	sends  *sendLog
	recvMu sync.Mutex
	recv   []received // what the agent received
	logs   *logBuffer // the agent's log
	dir    string
	output *logBuffer
	seen   int // events already returned by next
	cmd    *exec.Cmd
	done   chan error
}

// startLifecycle starts the agent on pool in a new pair of namespaces,
// with opts; the client is started by run.
func startLifecycle(t *testing.T, c lifecycleClient, pool *poolsource.Pool, opts ...Option) *lifecycleHost {
	t.Helper()
	h := &lifecycleHost{t: t, c: c, dir: t.TempDir(), output: &logBuffer{}}
	h.pair = newNetnsPair(t, macA, "10.77.0.2/24")
	logs := &logBuffer{}
	h.logs = logs
	h.agent = newAgent(t, pool, newTestLogger(logs), opts...)
	h.sends = &sendLog{}
	tap := &tapConn{
		Conn: listenIn(t, h.pair.agentNS, h.pair.agentIf),
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
			t.Logf("%s output:\n%s", c.name, h.output)
			t.Logf("script events: %v", h.events())
			t.Logf("agent sent: %v", h.sends.all())
		}
	})
	if c.setup != nil {
		c.setup(t, h.dir)
	}
	script := filepath.Join(h.dir, "script")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(lifecycleScript, h.dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// run starts the client, with its arguments changed by edit when it is
// not nil.
func (h *lifecycleHost) run(edit func([]string) []string) {
	h.t.Helper()
	args := h.c.args(h.pair.clientIf, filepath.Join(h.dir, "script"), h.dir)
	if edit != nil {
		args = edit(args)
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", h.pair.clientNS}, args...)...)
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
		h.t.Errorf("%s did not exit within 5s of SIGKILL", h.c.name)
	}
	h.cmd = nil
}

// events are the script's events so far, in order.
func (h *lifecycleHost) events() []scriptEvent {
	files, _ := filepath.Glob(filepath.Join(h.dir, "ev.*"))
	slices.Sort(files)
	var evs []scriptEvent
	for _, f := range files {
		if strings.HasSuffix(f, ".tmp") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		env := map[string]string{}
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				env[k] = v
			}
		}
		var ns int64
		fmt.Sscanf(strings.TrimPrefix(filepath.Base(f), "ev."), "%d", &ns)
		evs = append(evs, scriptEvent{name: env["EVENT"], kind: h.c.kind(env["EVENT"]),
			addr: normalize(env[h.c.vars[0]]), env: env, at: time.Unix(0, ns)})
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
			h.t.Fatalf("%s: no %q event within %v; events: %v", h.c.name, kind, timeout, evs)
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
		h.t.Fatalf("%s bound %s, but the agent sent no ACK of it before", h.c.name, e.addr)
	}
	opts, _, err := clientOptions(ack.ToBytes())
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
		got[k] = normalize(e.env[h.c.vars[i]])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		h.t.Errorf("%s read (+) other options than the ACK carried (-):\n%s", h.c.name, diff)
	}
	for k, v := range got {
		if v == "" {
			h.t.Errorf("%s: option %s empty: the lab pool sets every option", h.c.name, k)
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
	p := labPool(allocated)
	p.Spec.LeaseTime = poolsource.Duration(lifecycleLease)
	return p
}

// TestNetnsLifecycle runs real clients (busybox udhcpc, ISC dhclient,
// dhcpcd) through a lease's life against the agent over a veth pair, with
// an 8-second lease (T1 4s, T2 7s; udhcpc raises it to a minimum of its
// own and renews after about 15s): bind with every option; renew; the MAC
// moves to another address, and the client's next renewal is NAKed by
// unicast to its address, before its T2, and the client acts on that NAK
// and binds the new address; the MAC is removed from the pool, and the
// next renewal is NAKed and the address dropped. With the NAK broadcast
// instead (the agent's behaviour before), dhcpcd ignores the first NAK
// of each renewal, and this test fails.
//
// udhcpc sends its unicast renewal from a socket bound to ciaddr:68 that
// it closes at once, and a reply as fast as the agent's is often
// delivered to that socket and lost (busybox's source notes the race);
// udhcpc then broadcasts the renewal a second later and hears the reply.
// The test accepts either, as long as it comes before T2.
func TestNetnsLifecycle(t *testing.T) {
	requireNetns(t)
	t.Parallel() // minutes of waiting for timers, not of CPU: overlap them
	for _, c := range lifecycleClients {
		t.Run(c.name, func(t *testing.T) {
			requireClient(t, c.args("", "", "")[0])
			t.Parallel()
			h := startLifecycle(t, c, lifecyclePool(labAllocated()))
			h.run(nil)

			bound := h.next("bound", 30*time.Second)
			if bound.addr != addrA.String() {
				t.Fatalf("bound %s, want %s", bound.addr, addrA)
			}
			h.checkOptions(bound)

			renewed := h.next("renew", 3*lifecycleLease)
			if renewed.addr != addrA.String() {
				t.Fatalf("renewed %s, want %s", renewed.addr, addrA)
			}
			acks := h.sentSince(bound.at, dhcpv4.MessageTypeAck)
			if len(acks) == 0 || acks[0].to != "10.77.0.10:68" {
				t.Errorf("renewal ACKs %v, want the first to 10.77.0.10:68", acks)
			}

			// Move the MAC right after a renewal: the next renewal (T1,
			// 4s later) must learn it, well before rebinding (T2, 7s).
			if _, err := h.agent.Apply(lifecyclePool(movedAllocated())); err != nil {
				t.Fatal(err)
			}
			moved := time.Now()
			rebound := h.next("bound", 3*lifecycleLease)
			naks := h.sentSince(moved, dhcpv4.MessageTypeNak)
			if len(naks) == 0 {
				t.Fatalf("bound %s after the move without a NAK", rebound.addr)
			}
			nak := naks[0]
			// The client acts on the NAK it hears: no more NAKs before it
			// binds the new address than it is known to miss, plus one.
			if n := len(slices.DeleteFunc(slices.Clone(naks), func(s sent) bool { return s.at.After(rebound.at) })); n > 1+c.lostNaks {
				t.Errorf("%d NAKs before the client bound the new address, want at most %d: it ignored the NAK", n, 1+c.lostNaks)
			}
			if nak.to != "10.77.0.10:68" {
				t.Errorf("NAK to %s, want unicast to ciaddr 10.77.0.10:68", nak.to)
			}
			if got, want := nak.msg.Message(), "10.77.0.10 is not leased to 52:54:00:aa:00:01"; got != want {
				t.Errorf("NAK message %q, want %q", got, want)
			}
			// The client's T2, counted from the renewal's ACK: 7/8 of the
			// lease it keeps.
			t1 := renewed.at.Sub(bound.at)
			t2 := max(lifecycleLease, c.minLease) * 7 / 8
			if d := nak.at.Sub(renewed.at); d >= t2 {
				t.Errorf("NAK %v after the renewal, at or after the client's T2 (%v): it was rebinding", d, t2)
			}
			if rebound.addr != addrA2.String() {
				t.Fatalf("bound %s after the move, want %s", rebound.addr, addrA2)
			}
			h.checkOptions(rebound)
			t.Logf("%s: renewed %v after binding, NAKed %v after that renewal (T2 at %v), bound %s %v after the NAK", c.name,
				t1.Round(time.Millisecond), nak.at.Sub(renewed.at).Round(time.Millisecond), t2.Round(time.Millisecond),
				rebound.addr, rebound.at.Sub(nak.at).Round(time.Millisecond))

			// Remove the MAC: its next renewal is NAKed, and the client
			// drops the address.
			if _, err := h.agent.Apply(lifecyclePool(map[string]string{"10.77.0.11": macB})); err != nil {
				t.Fatal(err)
			}
			removed := time.Now()
			dropped := h.next("nak", 3*lifecycleLease)
			naks = h.sentSince(removed, dhcpv4.MessageTypeNak)
			if len(naks) == 0 {
				t.Fatalf("%s dropped its address without a NAK", c.name)
			}
			if naks[0].to != "10.77.0.20:68" {
				t.Errorf("NAK to %s, want unicast to ciaddr 10.77.0.20:68", naks[0].to)
			}
			if got, want := naks[0].msg.Message(), "10.77.0.20 is not leased to 52:54:00:aa:00:01"; got != want {
				t.Errorf("NAK message %q, want %q", got, want)
			}
			if d := naks[0].at.Sub(rebound.at); d >= t2 {
				t.Errorf("NAK %v after binding, at or after the client's T2 (%v): not at the next renewal", d, t2)
			}
			t.Logf("%s: removed MAC NAKed %v after the removal, address dropped (%s)", c.name,
				naks[0].at.Sub(removed).Round(time.Millisecond), dropped.name)
		})
	}
}
