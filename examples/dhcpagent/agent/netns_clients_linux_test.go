package agent

import (
	"context"
	"fmt"
	"net"
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
	"github.com/insomniacslk/dhcp/rfc1035label"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/labtest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// TestNetnsRealClients runs real DHCP clients (busybox udhcpc, dhcpcd, ISC
// dhclient, each where installed) against the agent over a veth pair, on
// pools whose options do not fit a 576-byte reply: each client must bind,
// and read exactly the options of the reply the agent sent, including those
// carried in the file and sname fields with option overload.
func TestNetnsRealClients(t *testing.T) {
	netnstest.Require(t)
	pools := []struct {
		name string
		pool *poolsource.Pool
	}{
		{"70 name servers, all of them with overload", labtest.BigPool(dhcp4test.LabAllocated(), 70, 2)},
		{"300 name servers and 200 search domains, cut", labtest.BigPool(dhcp4test.LabAllocated(), 300, 200)},
	}
	for _, c := range netnstest.Clients4 {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := exec.LookPath(c.Once("", "", "")[0]); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is not installed, and CI is set: make test installs it (as root, with apt-get)", c.Name)
				}
				t.Skipf("%s is not installed (with CI set, this is a failure)", c.Name)
			}
			for _, p := range pools {
				t.Run(p.name, func(t *testing.T) { runRealClient(t, c, p.pool) })
			}
		})
	}
}

func runRealClient(t *testing.T, c netnstest.Client4, pool *poolsource.Pool) {
	const clientMAC = "52:54:00:aa:00:01" // macA
	p := netnstest.NewPair(t, clientMAC, "10.77.0.2/24")
	logs := &logtest.Buffer{}
	a := newAgent(t, pool, logtest.Logger(logs, packetLevel))

	// Record each reply of the kind the client's script reads.
	var mu sync.Mutex
	var replies []*dhcpv4.DHCPv4
	var wires [][]byte // each reply as sent: overloaded options are only in these
	maxSize := "none"  // the client's option 57
	tap := &tapConn{
		Conn: listenIn(t, p.ServerNS, p.ServerIf),
		read: func(m *dhcpv4.DHCPv4) {
			if v, err := m.MaxMessageSize(); err == nil {
				mu.Lock()
				maxSize = fmt.Sprint(v)
				mu.Unlock()
			}
		},
		sent: func(m *dhcpv4.DHCPv4, wire []byte, _ netip.AddrPort) {
			if m.MessageType() == c.OnceReads {
				mu.Lock()
				replies = append(replies, m)
				wires = append(wires, wire)
				mu.Unlock()
			}
		},
	}
	serveIn(t, a, tap)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent log:\n%s", logs)
		}
	})

	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	script := filepath.Join(dir, "script")
	body := fmt.Sprintf("#!/bin/sh\n{ echo \"ARG=$1\"; env; } > %q.tmp && mv %q.tmp %q.$$\nexit 0\n", out, out, out)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", p.ClientNS}, c.Once(p.ClientIf, script, dir)...)...)
	output := &logtest.Buffer{}
	cmd.Stdout, cmd.Stderr = output, output
	cmd.WaitDelay = 5 * time.Second
	// The client runs in a process group of its own, killed whole: dhcpcd
	// leaves helper processes behind when its main process ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// Wait for the script to see a lease; dhclient stays in the foreground.
	var env map[string]string
	exited := false
	for env == nil && !exited {
		select {
		case err := <-done:
			exited = true
			if env = boundEnv(t, c, out); env == nil {
				t.Fatalf("%s exited (%v) without a lease; its output:\n%s", c.Name, err, output)
			}
		case <-ctx.Done():
			t.Fatalf("%s got no lease within 30s; its output:\n%s", c.Name, output)
		case <-time.After(50 * time.Millisecond):
			env = boundEnv(t, c, out)
		}
	}
	cancel()
	if !exited {
		<-done
	}

	mu.Lock()
	defer mu.Unlock()
	if len(replies) == 0 {
		t.Fatalf("%s is bound, but the agent sent no %s", c.Name, c.OnceReads)
	}
	ack := replies[len(replies)-1]
	opts, overload, err := dhcp4test.ClientOptions(wires[len(wires)-1])
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"address": ack.YourIPAddr.String(), "mask": ipNames(opts[1]), "router": ipNames(opts[3]),
		"server id": ipNames(opts[54]), "lease": fmt.Sprint(int64(ack.IPAddressLeaseTime(0) / time.Second)),
		"dns": ipNames(opts[6]), "domain": string(opts[15]), "search": searchNames(t, opts[119]), "ntp": ipNames(opts[42]),
	}
	got := map[string]string{}
	for i, k := range []string{"address", "mask", "router", "server id", "lease", "dns", "domain", "search", "ntp"} {
		got[k] = normalize(env[c.Vars[i]])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s read (+) other options than the %s carried (-), option overload %d:\n%s", c.Name, c.OnceReads, overload, diff)
	}
	t.Logf("%s (option 57: %s) read %s from a %d-byte %s, option overload %d, %d name servers", c.Name, maxSize,
		got["address"], len(wires[len(wires)-1]), c.OnceReads, overload, len(strings.Fields(got["dns"])))
}

// boundEnv is the environment of the client's script when it reported a
// lease, or nil.
func boundEnv(t *testing.T, c netnstest.Client4, out string) map[string]string {
	files, _ := filepath.Glob(out + ".*")
	slices.Sort(files)
	for _, f := range files {
		if strings.HasSuffix(f, ".tmp") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				env[k] = v
			}
		}
		if c.OnceBound(env, env["ARG"]) {
			return env
		}
	}
	return nil
}

// normalize is a script variable as a space-separated list without the
// quotes and trailing dots some clients add.
func normalize(s string) string {
	s = strings.Trim(s, `"'`)
	f := strings.Fields(s)
	for i := range f {
		f[i] = strings.TrimSuffix(f[i], ".")
	}
	return strings.Join(f, " ")
}

func ipNames(b []byte) string {
	var s []string
	for i := 0; i+4 <= len(b); i += 4 {
		s = append(s, net.IP(b[i:i+4]).String())
	}
	return strings.Join(s, " ")
}

func searchNames(t *testing.T, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	l, err := rfc1035label.FromBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(l.Labels, " ")
}
