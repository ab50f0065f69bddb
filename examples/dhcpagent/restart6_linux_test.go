package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// TestRestartKeepsServerDUID runs the command in a network namespace,
// lets dhclient -6 bind, restarts the command, and checks that the
// client's next RENEW, which names the server by the DUID it had, is
// answered by the restarted agent: a DUID that changed would leave it
// unanswered until the client rebinds at T2 (REBIND6 instead of RENEW6).
func TestRestartKeepsServerDUID(t *testing.T) {
	netnstest.Require(t)
	const mac = "52:54:00:aa:00:01"
	p := netnstest.NewPair(t, mac, "2001:db8:30::1/64", "10.77.0.2/24")
	netnstest.LinkLocal(t, p.ClientNS, p.ClientIf)
	path := filepath.Join(t.TempDir(), "pool.json")
	// T1 = 5 s, T2 = 8 s: room for a restart between the binding and the
	// renewal.
	pool := fmt.Sprintf(`{"metadata": {"name": "lab", "namespace": "default", "resourceVersion": "1"},
 "spec": {"cidr": "10.77.0.0/24", "serverIP": "10.77.0.2", "leaseTime": "1h",
  "ipv6": {"cidr": "2001:db8:30::/64", "preferredLifetime": "10s", "validLifetime": "20s"}},
 "status": {"allocated": {"10.77.0.10": %[1]q}, "ipv6": {"allocated": {"2001:db8:30::a": %[1]q}}}}`, mac)
	if err := os.WriteFile(path, []byte(pool), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func() (stop func(), logs *logtest.Buffer) {
		logs = &logtest.Buffer{}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- netnstest.In(p.ServerNS, func() error {
				return run(ctx, []string{"-pool", path, "-iface", p.ServerIf, "-summary", "0", "-v", "1"}, logs)
			})
		}()
		return func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("dhcpagent: %v\n%s", err, logs)
			}
		}, logs
	}
	stop, logs1 := start()
	c := netnstest.StartClient6(t, netnstest.Dhclient, p, netnstest.Client6Config{})
	bound := c.Wait("a binding", 20*time.Second, func(e netnstest.Event6) bool { return e.Reason == "BOUND6" })
	stop()
	stop, logs2 := start()
	defer stop()
	next := c.WaitAfter(len(c.Events()), "the next renewal or rebinding", 15*time.Second, func(e netnstest.Event6) bool {
		return e.Reason == "RENEW6" || e.Reason == "REBIND6"
	})
	if next.Reason != "RENEW6" || next.ServerID != bound.ServerID || next.Addr != bound.Addr {
		t.Errorf("after the restart: %s from server %s, want RENEW6 of %s from %s (the same DUID)\nfirst agent:\n%s\nsecond agent:\n%s",
			next, next.ServerID, bound.Addr, bound.ServerID, logs1, logs2)
	}
	if want := fmt.Sprintf("%x", poolDUID("default", "lab")); bound.ServerID != want {
		t.Errorf("server DUID %s, want the pool's %s", bound.ServerID, want)
	}
}
