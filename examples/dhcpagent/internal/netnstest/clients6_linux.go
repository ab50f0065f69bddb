package netnstest

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// Client6Kind names a real DHCPv6 client program.
type Client6Kind string

// The real DHCPv6 clients the tests run (see /work/shared/DHCPV6-LAB.md for
// how each behaves here).
const (
	Dhclient Client6Kind = "dhclient" // ISC dhclient 4.4 (-6), Debian isc-dhcp-client
	Dhcpcd   Client6Kind = "dhcpcd"   // dhcpcd 9 (-6), Debian dhcpcd-base
)

// Package is the Debian package that installs the client.
func (k Client6Kind) Package() string {
	if k == Dhcpcd {
		return "dhcpcd-base"
	}
	return "isc-dhcp-client"
}

// Client6Config is how a real client is started.
type Client6Config struct {
	// DUID is the client's DUID (its bytes, type first); nil: the
	// client's own (DUID-LLT of the interface's MAC for both).
	DUID []byte
	// InfoOnly sends an INFORMATION-REQUEST instead of asking for an
	// address (dhclient -S; dhcpcd --inform6), then stops.
	InfoOnly bool
}

// Event6 is one call of the client's hook script, as both clients report
// it, normalized: addresses parsed, lists without trailing dots, DUIDs as
// lowercase hex without separators.
type Event6 struct {
	Reason    string // BOUND6, RENEW6, REBIND6, RELEASE6, EXPIRE6, INFORM6, ...
	Addr      netip.Addr
	Preferred time.Duration
	Valid     time.Duration
	DNS       string // space-separated
	Search    string // space-separated
	ServerID  string // hex
	ClientID  string // hex (dhclient only; dhcpcd's hex too)
	Env       map[string]string
}

func (e Event6) String() string {
	return fmt.Sprintf("%s %s pltime %v vltime %v dns [%s] search [%s]", e.Reason, e.Addr, e.Preferred, e.Valid, e.DNS, e.Search)
}

// Client6 is one real DHCPv6 client process in the pair's client
// namespace. Stop (also at the end of the test) kills it.
type Client6 struct {
	t    testing.TB
	kind Client6Kind
	p    *Pair
	dir  string
	cfg  Client6Config
	cmd  *exec.Cmd
	out  *logtest.Buffer
	done chan error
}

// StartClient6 starts the client kind on the pair's client interface. It
// fails the test when the client is missing and CI is set.
func StartClient6(t testing.TB, kind Client6Kind, p *Pair, cfg Client6Config) *Client6 {
	t.Helper()
	RequireTool(t, string(kind), kind.Package())
	c := &Client6{t: t, kind: kind, p: p, dir: t.TempDir(), cfg: cfg, out: &logtest.Buffer{}, done: make(chan error, 1)}
	script := filepath.Join(c.dir, "script")
	// One file per call, named by the time, so that events sort in order.
	body := fmt.Sprintf("#!/bin/sh\n{ echo \"ARG=$1\"; env; } > %[1]q/ev.tmp.$$ && mv %[1]q/ev.tmp.$$ %[1]q/ev.$(date +%%s%%N).$$\n", c.dir)
	if kind == Dhclient {
		body += dhclientAddrs
	}
	body += "exit 0\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	var args []string
	switch kind {
	case Dhclient:
		if cfg.DUID != nil {
			var b strings.Builder
			for _, x := range cfg.DUID {
				fmt.Fprintf(&b, "\\%03o", x)
			}
			if err := os.WriteFile(c.leases(), []byte("default-duid \""+b.String()+"\";\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args = []string{"dhclient", "-6", "-d", "-v"}
		if cfg.InfoOnly {
			args = append(args, "-S")
		}
		args = append(args, "-lf", c.leases(), "-pf", filepath.Join(c.dir, "pid"), "-sf", script, p.ClientIf)
	case Dhcpcd:
		conf := "ipv6only\nnoipv6rs\noption dhcp6_name_servers, dhcp6_domain_search\nrelease\n"
		if cfg.DUID != nil {
			conf += "duid " + colonHex(cfg.DUID) + "\n"
		}
		conf += "interface " + p.ClientIf + "\n"
		if !cfg.InfoOnly {
			conf += "  ia_na 1\n"
		}
		if err := os.WriteFile(filepath.Join(c.dir, "dhcpcd.conf"), []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		run := "dhcpcd -6 -B -d -f " + filepath.Join(c.dir, "dhcpcd.conf") + " -c " + script
		if cfg.InfoOnly {
			run += " --inform6"
		}
		args = dhcpcdPrivate(t, c.dir, run+" "+p.ClientIf)
	}
	c.cmd = exec.Command("ip", append([]string{"netns", "exec", p.ClientNS}, args...)...)
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	// Its own process group, killed whole: dhcpcd forks helpers.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.done <- c.cmd.Wait() }()
	t.Cleanup(func() {
		c.Stop()
		if kind == Dhcpcd {
			// dhcpcd leaves the kernel's link-local generation off.
			exec.Command("ip", "-n", p.ClientNS, "link", "set", p.ClientIf, "addrgenmode", "eui64").Run()
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", kind, c.out)
		}
	})
	return c
}

// dhclientAddrs is the part of a dhclient script that configures the
// address, as Debian's dhclient-script does (dhclient leaves it to the
// script; dhcpcd configures it itself), without touching resolv.conf.
const dhclientAddrs = `case $reason in
BOUND6|RENEW6|REBIND6|REBOOT6)
	if [ -n "$old_ip6_address" ] && [ "$old_ip6_address" != "$new_ip6_address" ]; then
		ip -6 addr del "$old_ip6_address/$old_ip6_prefixlen" dev "$interface"
	fi
	if [ -n "$new_ip6_address" ]; then
		ip -6 addr replace "$new_ip6_address/$new_ip6_prefixlen" dev "$interface" valid_lft "$new_max_life" preferred_lft "$new_preferred_life"
	fi ;;
DEPREF6)
	ip -6 addr change "$cur_ip6_address/$cur_ip6_prefixlen" dev "$interface" preferred_lft 0 ;;
RELEASE6|EXPIRE6|STOP6)
	[ -n "$old_ip6_address" ] && ip -6 addr del "$old_ip6_address/$old_ip6_prefixlen" dev "$interface" ;;
esac
`

func (c *Client6) leases() string { return filepath.Join(c.dir, "leases") }

// Output is what the client printed so far.
func (c *Client6) Output() string { return c.out.String() }

// Wait returns the first event (in order, from the start) that match
// accepts, waiting up to timeout; it fails the test if none comes or the
// client exits first.
func (c *Client6) Wait(what string, timeout time.Duration, match func(Event6) bool) Event6 {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		evs := c.Events()
		for _, e := range evs {
			if match(e) {
				return e
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: no %s within %v; events: %v", c.kind, what, timeout, evs)
		}
		select {
		case err := <-c.done:
			c.done <- err
			if e := c.Events(); len(e) > len(evs) {
				continue
			}
			c.t.Fatalf("%s exited (%v) before %s; events: %v", c.kind, err, what, evs)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// WaitAfter is Wait among the events after the first n.
func (c *Client6) WaitAfter(n int, what string, timeout time.Duration, match func(Event6) bool) Event6 {
	c.t.Helper()
	i := 0
	return c.Wait(what, timeout, func(e Event6) bool {
		i++
		return i > n && match(e)
	})
}

// Release makes the client give its address back and stop: dhclient -r
// (a second dhclient that stops the first and sends the RELEASE),
// dhcpcd's SIGTERM with `release` in its configuration.
func (c *Client6) Release() {
	c.t.Helper()
	switch c.kind {
	case Dhclient:
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "ip", "netns", "exec", c.p.ClientNS, "dhclient", "-6", "-r", "-v",
			"-lf", c.leases(), "-pf", filepath.Join(c.dir, "pid"), "-sf", filepath.Join(c.dir, "script"), c.p.ClientIf).CombinedOutput()
		if err != nil {
			c.t.Fatalf("dhclient -6 -r: %v\n%s", err, out)
		}
		c.out.Write(out)
	case Dhcpcd:
		c.signal(syscall.SIGTERM)
	}
	select {
	case <-c.done:
		c.done <- nil
	case <-time.After(10 * time.Second):
		c.t.Fatalf("%s still runs 10s after the release", c.kind)
	}
}

// signal sends sig to the client process (for dhcpcd, its manager
// process: the one exec'd by the shell that ip netns exec ran).
func (c *Client6) signal(sig syscall.Signal) {
	if err := c.cmd.Process.Signal(sig); err != nil {
		c.t.Fatalf("signal %v to %s: %v", sig, c.kind, err)
	}
}

// Stop kills the client's process group (no RELEASE).
func (c *Client6) Stop() {
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case err := <-c.done:
		c.done <- err
	case <-time.After(5 * time.Second):
	}
}

// Addrs are the client interface's global IPv6 addresses, as the kernel
// holds them now.
func (p *Pair) Addrs(t testing.TB) []netip.Addr {
	t.Helper()
	out, err := exec.Command("ip", "-n", p.ClientNS, "-6", "-o", "addr", "show", "dev", p.ClientIf, "scope", "global").CombinedOutput()
	if err != nil {
		t.Fatalf("ip addr show: %v\n%s", err, out)
	}
	var addrs []netip.Addr
	for _, f := range strings.Fields(string(out)) {
		if pr, err := netip.ParsePrefix(f); err == nil {
			addrs = append(addrs, pr.Addr())
		}
	}
	slices.SortFunc(addrs, netip.Addr.Compare)
	return addrs
}
