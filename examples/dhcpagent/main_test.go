package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
)

// TestRunErrors checks that bad flags and a bad first load stop the
// command before it binds a socket.
func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"spec": {"cidr": "10.0.0.0/24"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no pool", nil, "-pool or -ippool is required"},
		{"both sources", []string{"-pool", bad, "-ippool", "default/lab"}, "-pool and -ippool exclude each other"},
		{"kubeconfig without ippool", []string{"-pool", bad, "-kubeconfig", "kc"}, "-kubeconfig needs -ippool"},
		{"ippool without namespace", []string{"-ippool", "lab"}, `-ippool "lab": want namespace/name`},
		{"ippool with two slashes", []string{"-ippool", "a/b/c"}, `-ippool "a/b/c": want namespace/name`},
		{"bad poll", []string{"-pool", bad, "-poll", "0s"}, "-poll 0s: must be positive"},
		{"negative probation", []string{"-pool", bad, "-probation", "-1s"}, "must not be negative"},
		{"bad listen", []string{"-pool", bad, "-listen", "nowhere"}, `-listen "nowhere"`},
		{"missing file", []string{"-pool", filepath.Join(dir, "none.json")}, "no such file"},
		{"invalid pool", []string{"-pool", bad}, `spec.serverIP "": required`},
		{"unknown flag", []string{"-pol", bad}, "flag provided but not defined"},
		{"missing kubeconfig", []string{"-ippool", "default/lab", "-kubeconfig", filepath.Join(dir, "none")}, "kubeconfig"},
		{"arguments", []string{"-pool", bad, "extra"}, `unexpected arguments ["extra"]`},
		{"state-dir without ippool", []string{"-pool", bad, "-state-dir", dir}, "-state-dir needs -ippool"},
		{"negative state-wait", []string{"-ippool", "default/lab", "-state-dir", dir, "-state-wait", "-1s"}, "-state-wait must not be negative"},
		{"relays6 not an address", []string{"-pool", bad, "-relays6", "relay1"}, `-relays6 "relay1": want IPv6 addresses or prefixes`},
		{"relays6 IPv4", []string{"-pool", bad, "-relays6", "10.0.0.1"}, `-relays6 "10.0.0.1": want IPv6 addresses or prefixes`},
		{"relays6 with a zone", []string{"-pool", bad, "-relays6", "fe80::1%eth0"}, `-relays6 "fe80::1%eth0": want IPv6 addresses or prefixes, like 2001:db8::1 or fd00:1::/64, without a zone`},
		{"peers4 IPv6", []string{"-pool", bad, "-peers4", "2001:db8::1"}, `-peers4 "2001:db8::1": want IPv4 addresses or prefixes`},
		{"peers4 host bits", []string{"-pool", bad, "-peers4", "10.20.0.3/31"}, `-peers4 "10.20.0.3/31": host bits set (did you mean 10.20.0.2/31?)`},
		{"server-ip not an address", []string{"-pool", bad, "-server-ip", "me"}, `-server-ip "me": want an IPv4 address or "iface"`},
		{"server-ip IPv6", []string{"-pool", bad, "-server-ip", "2001:db8::1"}, `-server-ip "2001:db8::1": want an IPv4 address or "iface"`},
		{"server-ip iface without -iface", []string{"-pool", bad, "-server-ip", "iface"}, `-server-ip iface needs -iface`},
		{"relays6 host bits", []string{"-pool", bad, "-relays6", "2001:db8::1/64"}, `-relays6 "2001:db8::1/64": host bits set (did you mean 2001:db8::/64?)`},
		{"cpuprofile in a missing directory", []string{"-pool", bad, "-cpuprofile", filepath.Join(dir, "none", "cpu")}, "-cpuprofile: open"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
			if code := command.ExitCode("dhcpagent", err, &stderr); code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
		})
	}
}

// TestHelp checks that -h exits 0 and describes every flag.
func TestHelp(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"-h"}, &stderr)
	if code := command.ExitCode("dhcpagent", err, &stderr); code != 0 {
		t.Fatalf("-h: exit code %d (%v), want 0", code, err)
	}
	help := stderr.String()
	for _, flag := range []string{"-pool", "-ippool", "-kubeconfig", "-iface", "-listen", "-poll", "-probation",
		"-summary", "-rcvbuf", "-metrics-bind-address", "-health-probe-bind-address", "-v", "-vmodule"} {
		if !strings.Contains(help, "\n  "+flag+" ") && !strings.Contains(help, "\n  "+flag+"\n") {
			t.Errorf("help does not describe %s:\n%s", flag, help)
		}
	}
}
