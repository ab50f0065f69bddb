// Package netnstest builds the test hosts of the agent's netns tests,
// DHCPv4 and DHCPv6 alike: two network namespaces joined by a veth pair,
// the server's end addressed, the client's end up with only its
// link-local address, and duplicate address detection off on both so that
// addresses are usable at once (a real DHCPv6 client's link-local would
// otherwise be "tentative" for a second and its first SOLICIT fail). Only
// tests import it.
package netnstest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Require fails the test where it cannot run. It skips only on a
// developer machine (CI unset) without root; in CI it must run, as the
// DHCPv4 netns tests do.
func Require(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "" {
			t.Skip("needs root to create network namespaces; CI runs it as root (with CI set, this is a failure)")
		}
		t.Fatal("needs root to create network namespaces and veth pairs, and CI is set: run the tests as root")
	}
	RequireTool(t, "ip", "iproute2")
}

// RequireTool fails the test when the program name is not installed and
// CI is set (make test installs the Debian package pkg); without CI it
// skips.
func RequireTool(t testing.TB, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed, and CI is set: make test installs it (Debian package %s, as root)", name, pkg)
		}
		t.Skipf("%s is not installed (Debian package %s; with CI set, this is a failure)", name, pkg)
	}
}

// Pair is two network namespaces joined by a veth pair.
type Pair struct {
	ServerNS, ClientNS string
	ServerIf, ClientIf string
}

// IP runs ip with args and fails the test on an error.
func IP(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// NewPair creates the namespaces (unique names per run) and the veth pair,
// with clientMAC on the client's end and serverCIDRs on the server's, both
// ends up with DAD off; t.Cleanup deletes them.
func NewPair(t testing.TB, clientMAC string, serverCIDRs ...string) *Pair {
	t.Helper()
	b := make([]byte, 3)
	rand.Read(b)
	id := hex.EncodeToString(b)
	p := &Pair{
		ServerNS: "vmnetkit-s6-" + id, ClientNS: "vmnetkit-c6-" + id,
		ServerIf: "vsa" + id, ClientIf: "vsc" + id, // 9 bytes: IFNAMSIZ is 16
	}
	for _, ns := range []string{p.ServerNS, p.ClientNS} {
		if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
			t.Fatalf("cannot create network namespace %s: %v\n%s", ns, err, out)
		}
		t.Cleanup(func() {
			if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
				t.Errorf("ip netns del %s: %v\n%s", ns, err, out)
			}
		})
		// Before the veth exists, so that its ends inherit it.
		Sysctl(t, ns, "net.ipv6.conf.default.accept_dad", "0")
		Sysctl(t, ns, "net.ipv6.conf.all.accept_dad", "0")
	}
	IP(t, "link", "add", p.ServerIf, "netns", p.ServerNS, "type", "veth",
		"peer", "name", p.ClientIf, "netns", p.ClientNS, "address", clientMAC)
	for _, cidr := range serverCIDRs {
		IP(t, "-n", p.ServerNS, "addr", "add", cidr, "dev", p.ServerIf, "nodad")
	}
	IP(t, "-n", p.ServerNS, "link", "set", "lo", "up")
	IP(t, "-n", p.ServerNS, "link", "set", p.ServerIf, "up")
	IP(t, "-n", p.ClientNS, "link", "set", "lo", "up")
	IP(t, "-n", p.ClientNS, "link", "set", p.ClientIf, "up")
	return p
}

// Sysctl sets key to value inside ns.
func Sysctl(t testing.TB, ns, key, value string) {
	t.Helper()
	if out, err := exec.Command("ip", "netns", "exec", ns, "sysctl", "-q", "-w", key+"="+value).CombinedOutput(); err != nil {
		t.Fatalf("sysctl %s=%s in %s: %v\n%s", key, value, ns, err, out)
	}
}

// In runs fn on an OS thread moved into network namespace ns. Sockets fn
// opens belong to ns for good, whichever thread uses them later. The
// thread is never unlocked, so the runtime discards it when fn returns
// rather than reuse it in the wrong namespace.
func In(ns string, fn func() error) error {
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

// LinkLocal waits (up to 5 s) for iface in ns to have a link-local
// address and returns it.
func LinkLocal(t testing.TB, ns, iface string) netip.Addr {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := exec.Command("ip", "-n", ns, "-6", "-o", "addr", "show", "dev", iface, "scope", "link").CombinedOutput()
		if err != nil {
			t.Fatalf("ip addr show %s in %s: %v\n%s", iface, ns, err, out)
		}
		for _, f := range strings.Fields(string(out)) {
			if p, err := netip.ParsePrefix(f); err == nil && p.Addr().IsLinkLocalUnicast() && !strings.Contains(string(out), "tentative") {
				return p.Addr()
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s in %s has no usable link-local address after 5s: %s", iface, ns, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
