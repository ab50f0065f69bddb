package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// TestUnprivileged runs the agent binary as config/manager runs it: a
// non-root user (65532) with no capability at all, in its own network
// namespace, bound to one interface (-iface, SO_BINDTODEVICE) on port 67.
// Without the namespace's net.ipv4.ip_unprivileged_port_start=67 the bind
// is refused (the control); with it the agent serves, and busybox udhcpc in
// a second namespace, across a veth pair, gets its lease.
func TestUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "" {
			t.Skip("needs root to create network namespaces and switch users; CI runs it as root (with CI set, this is a failure)")
		}
		t.Fatal("needs root to create network namespaces and switch users, and CI is set: run the tests as root")
	}
	for _, cmd := range []string{"ip", "setpriv", "udhcpc"} {
		if _, err := exec.LookPath(cmd); err != nil {
			t.Fatalf("needs %s: %v", cmd, err)
		}
	}
	// A folder the unprivileged user can read: the binary and the pool.
	dir, err := os.MkdirTemp("", "dhcpagent-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin, pool := filepath.Join(dir, "dhcpagent"), filepath.Join(dir, "pool.json")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.WriteFile(pool, []byte(testPool), 0o644); err != nil {
		t.Fatal(err)
	}

	b := make([]byte, 3)
	rand.Read(b)
	id := hex.EncodeToString(b)
	agentNS, clientNS, agentIf, clientIf := "vmnetkit-unpriv-a-"+id, "vmnetkit-unpriv-c-"+id, "vua"+id, "vuc"+id
	for _, ns := range []string{agentNS, clientNS} {
		sh(t, "ip", "netns", "add", ns)
		t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	}
	// The client's MAC is the one the pool allocated 10.20.0.10 to.
	sh(t, "ip", "link", "add", agentIf, "netns", agentNS, "type", "veth", "peer", "name", clientIf, "netns", clientNS, "address", "52:54:00:aa:bb:01")
	sh(t, "ip", "-n", agentNS, "addr", "add", "10.20.0.2/24", "dev", agentIf)
	sh(t, "ip", "-n", agentNS, "link", "set", agentIf, "up")
	sh(t, "ip", "-n", clientNS, "link", "set", clientIf, "up")

	agent := func(ctx context.Context) *exec.Cmd {
		return exec.CommandContext(ctx, "ip", "netns", "exec", agentNS,
			"setpriv", "--reuid=65532", "--regid=65532", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
			bin, "-pool", pool, "-iface", agentIf, "-listen", "0.0.0.0:67", "-summary", "0", "-rcvbuf", "0", "-v=1")
	}

	// The control: no capability, ports below 1024 privileged.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := agent(ctx).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "bind: permission denied") {
		t.Fatalf("without the sysctl: %v, output:\n%s\nwant the bind of port 67 refused", err, out)
	}

	sh(t, "ip", "netns", "exec", agentNS, "sysctl", "-q", "-w", "net.ipv4.ip_unprivileged_port_start=67")
	cmd := agent(ctx)
	log := &logtest.Buffer{}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	serving := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.Write([]byte(sc.Text() + "\n"))
			if strings.Contains(sc.Text(), `"serving"`) {
				close(serving)
			}
		}
	}()
	select {
	case <-serving:
	case <-time.After(20 * time.Second):
		t.Fatalf("the agent does not serve within 20s; log:\n%s", log.String())
	}
	// What the process holds: user 65532, no effective, permitted or
	// bounding capability.
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Uid:\t65532\t65532\t65532\t65532", "CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "CapBnd:\t0000000000000000"} {
		if !strings.Contains(string(status), want) {
			t.Errorf("/proc/PID/status of the agent lacks %q:\n%s", want, status)
		}
	}

	client := exec.CommandContext(ctx, "ip", "netns", "exec", clientNS,
		"udhcpc", "-f", "-q", "-n", "-i", clientIf, "-s", "/bin/true", "-t", "5", "-T", "1", "-A", "1")
	cout, err := client.CombinedOutput()
	if err != nil || !strings.Contains(string(cout), "lease of 10.20.0.10 obtained") {
		t.Fatalf("udhcpc: %v, output:\n%s\nagent log:\n%s", err, cout, log.String())
	}
}

// sh runs a command and fails t with its output if it fails.
func sh(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}
