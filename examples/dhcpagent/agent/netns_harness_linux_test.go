package agent

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// netnsPair is two network namespaces joined by a veth pair: the agent's
// side holds the server address, the client's side starts unconfigured.
type netnsPair struct {
	agentNS, clientNS string
	agentIf, clientIf string
}

// requireNetns fails the test where it cannot run. It skips only on a
// developer machine (CI unset) without root; in CI it must run.
func requireNetns(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "" {
			t.Skip("needs root to create network namespaces; CI runs it as root (with CI set, this is a failure)")
		}
		t.Fatal("needs root to create network namespaces and veth pairs, and CI is set: run the tests as root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatalf("needs iproute2's ip command to create network namespaces: %v", err)
	}
}

func ip(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// newNetnsPair creates the namespaces (unique names per run) and the veth
// pair, with clientMAC on the client's end and serverCIDR on the agent's;
// t.Cleanup deletes them.
func newNetnsPair(t *testing.T, clientMAC, serverCIDR string) *netnsPair {
	t.Helper()
	b := make([]byte, 3)
	rand.Read(b)
	id := hex.EncodeToString(b)
	p := &netnsPair{
		agentNS: "vmnetkit-agent-" + id, clientNS: "vmnetkit-client-" + id,
		agentIf: "vka" + id, clientIf: "vkc" + id, // 9 bytes: IFNAMSIZ is 16
	}
	for _, ns := range []string{p.agentNS, p.clientNS} {
		if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
			t.Fatalf("cannot create network namespace %s (root, and a kernel with network namespaces, are needed): %v\n%s", ns, err, out)
		}
		t.Cleanup(func() {
			if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
				t.Errorf("ip netns del %s: %v\n%s", ns, err, out)
			}
		})
	}
	ip(t, "link", "add", p.agentIf, "netns", p.agentNS, "type", "veth",
		"peer", "name", p.clientIf, "netns", p.clientNS, "address", clientMAC)
	ip(t, "-n", p.agentNS, "addr", "add", serverCIDR, "dev", p.agentIf)
	ip(t, "-n", p.agentNS, "link", "set", p.agentIf, "up")
	ip(t, "-n", p.clientNS, "link", "set", p.clientIf, "up")
	return p
}

// inNetns runs fn on an OS thread moved into network namespace ns. Sockets
// fn opens belong to ns for good, whichever thread uses them later. The
// thread is never unlocked, so the runtime discards it when fn returns
// rather than reuse it in the wrong namespace.
func inNetns(ns string, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open(filepath.Join("/var/run/netns", ns))
		if err != nil {
			errc <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns %s: %w", ns, err)
			return
		}
		errc <- fn()
	}()
	return <-errc
}
