//go:build linux

package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/dhcp4test"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/netnstest"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// fieldCase2Pool is case 2 of FIELD-CASES.md, the Harvester managed-DHCP
// IPPool, as the field wrote it: the same strings, the lease time in whole
// seconds, the two allocations in the status.
const fieldCase2Pool = `{
	"apiVersion": "network.vmnetkit.dev/v1alpha1",
	"kind": "IPPool",
	"metadata": {"name": "harvester", "namespace": "default"},
	"spec": {
		"cidr": "192.168.30.0/24",
		"serverIP": "192.168.30.251",
		"router": "192.168.30.1",
		"rangeStart": "192.168.30.2",
		"rangeEnd": "192.168.30.250",
		"exclude": ["192.168.30.5", "192.168.30.6", "192.168.30.7"],
		"leaseTime": 300
	},
	"status": {"allocated": {
		"192.168.30.120": "fa:cf:8e:50:82:fc",
		"192.168.30.217": "76:69:f4:cb:e6:dd"
	}}
}`

// TestFieldCase2HarvesterIPPool (Linux: network namespaces) serves FIELD-CASES.md case 2 to a real
// client: busybox udhcpc, on a veth whose MAC is the field's
// fa:cf:8e:50:82:fc, binds 192.168.30.120/24 with router .1, server
// identifier .251 and a 300 s lease, as its script reads them.
func TestFieldCase2HarvesterIPPool(t *testing.T) {
	netnstest.Require(t)
	c := netnstest.Clients4[0]
	if c.Name != "udhcpc" {
		t.Fatalf("netnstest.Clients4[0] is %s, want udhcpc", c.Name)
	}
	requireClient(t, c.Once("", "", "")[0])
	const clientMAC = "fa:cf:8e:50:82:fc"
	p := netnstest.NewPair(t, clientMAC, "192.168.30.251/24")
	logs := &logtest.Buffer{}
	a := New(nil, WithLogger(logtest.Logger(logs, packetLevel)))
	u, err := load(a, []byte(fieldCase2Pool))
	if err != nil {
		t.Fatal(err)
	}
	if u.Leases != 2 || len(u.Problems) > 0 {
		t.Fatalf("case 2 loaded %d leases, problems %v; want 2 and none", u.Leases, u.Problems)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agent log:\n%s", logs)
		}
	})
	serveIn(t, a, listenIn(t, p.ServerNS, p.ServerIf))

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
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	output := &logtest.Buffer{}
	cmd.Stdout, cmd.Stderr = output, output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	if err := cmd.Wait(); err != nil {
		t.Fatalf("udhcpc: %v\n%s", err, output)
	}
	env := boundEnv(t, c, out)
	if env == nil {
		t.Fatalf("udhcpc exited without a lease; its output:\n%s", output)
	}
	got := map[string]string{}
	for i, k := range []string{"address", "mask", "router", "server id", "lease"} {
		got[k] = normalize(env[c.Vars[i]])
	}
	want := map[string]string{
		"address": "192.168.30.120", "mask": "255.255.255.0", "router": "192.168.30.1",
		"server id": "192.168.30.251", "lease": "300",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("udhcpc bound (-want +got):\n%s", diff)
	}
	if s := a.Stats(time.Now()); s.Acks < 1 {
		t.Errorf("%d ACKs sent", s.Acks)
	}
	// The other allocation is served too.
	other, err := a.RespondAt(dhcp4test.Discover(t, "76:69:f4:cb:e6:dd"), time.Now())
	if err != nil || other.MessageType() != dhcpv4.MessageTypeOffer || other.YourIPAddr.String() != "192.168.30.217" {
		t.Errorf("DISCOVER of 76:69:f4:cb:e6:dd: %v, %v; want an OFFER of 192.168.30.217", other, err)
	}
}
