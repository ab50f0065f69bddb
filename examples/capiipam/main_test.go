package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFlags: -h prints the flags; an unknown flag or a missing
// kubeconfig file is an error before any manager starts.
func TestRunFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr error
		stderr  string
	}{
		{name: "help", args: []string{"-h"}, wantErr: flag.ErrHelp, stderr: "-concurrent-claims"},
		{name: "unknown flag", args: []string{"-no-such-flag"}, stderr: "no-such-flag"},
		{name: "missing kubeconfig file", args: []string{"-kubeconfig", filepath.Join(t.TempDir(), "none")}, stderr: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stderr)
			if err == nil {
				t.Fatalf("run(%q) = nil, want an error", tt.args)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("run(%q) = %v, want %v", tt.args, err, tt.wantErr)
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("run(%q) printed %q, want it to mention %q", tt.args, stderr.String(), tt.stderr)
			}
		})
	}
}

// TestRestConfig: the client-side limit is what the flags say, whether the
// kubeconfig comes from -kubeconfig or $KUBECONFIG; by default there is
// none, not client-go's 5 requests a second.
func TestRestConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", path)
	tests := []struct {
		name      string
		path      string
		qps       float32
		burst     int
		wantQPS   float32
		wantBurst int
	}{
		{name: "flag, default: no limit", path: path, qps: -1, wantQPS: -1},
		{name: "env, default: no limit", qps: -1, wantQPS: -1},
		{name: "flag, qps only", path: path, qps: 50, wantQPS: 50, wantBurst: 100},
		{name: "env, qps and burst", qps: 50, burst: 60, wantQPS: 50, wantBurst: 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := restConfig(tt.path, tt.qps, tt.burst)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != "https://127.0.0.1:6443" || cfg.QPS != tt.wantQPS || cfg.Burst != tt.wantBurst {
				t.Errorf("restConfig(%q, %v, %d) = host %q QPS %v Burst %d, want host https://127.0.0.1:6443 QPS %v Burst %d",
					tt.path, tt.qps, tt.burst, cfg.Host, cfg.QPS, cfg.Burst, tt.wantQPS, tt.wantBurst)
			}
		})
	}
}

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: https://127.0.0.1:6443
users:
- name: test
  user:
    token: test
contexts:
- name: test
  context:
    cluster: test
    user: test
current-context: test
`
