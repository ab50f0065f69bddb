package command

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRESTConfig: -kubeconfig wins, $KUBECONFIG is honoured without it, and
// the client-side limit is what the flags say; by default there is none,
// not client-go's 5 requests a second.
func TestRESTConfig(t *testing.T) {
	dir := t.TempDir()
	flagPath, envPath := filepath.Join(dir, "flag"), filepath.Join(dir, "env")
	for path, server := range map[string]string{flagPath: "https://127.0.0.1:6443", envPath: "https://127.0.0.2:6443"} {
		if err := os.WriteFile(path, []byte(kubeconfig(server)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KUBECONFIG", envPath)
	tests := []struct {
		name      string
		args      []string
		wantHost  string
		wantQPS   float32
		wantBurst int
	}{
		{name: "flag, default: no limit", args: []string{"-kubeconfig", flagPath}, wantHost: "https://127.0.0.1:6443", wantQPS: -1},
		{name: "env, default: no limit", wantHost: "https://127.0.0.2:6443", wantQPS: -1},
		{name: "flag, qps only", args: []string{"-kubeconfig", flagPath, "-kube-api-qps", "50"}, wantHost: "https://127.0.0.1:6443", wantQPS: 50, wantBurst: 100},
		{name: "env, qps and burst", args: []string{"-kube-api-qps", "50", "-kube-api-burst", "60"}, wantHost: "https://127.0.0.2:6443", wantQPS: 50, wantBurst: 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := parse(t, tt.args...)
			cfg, err := f.RESTConfig()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.wantHost || cfg.QPS != tt.wantQPS || cfg.Burst != tt.wantBurst {
				t.Errorf("RESTConfig() = host %q QPS %v Burst %d, want host %q QPS %v Burst %d",
					cfg.Host, cfg.QPS, cfg.Burst, tt.wantHost, tt.wantQPS, tt.wantBurst)
			}
		})
	}
}

func TestBindAddress(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOn bool
	}{{"0", "0", false}, {"", "0", false}, {":8081", ":8081", true}, {"127.0.0.1:0", "127.0.0.1:0", true}}
	for _, tt := range tests {
		if got, on := BindAddress(tt.in); got != tt.want || on != tt.wantOn {
			t.Errorf("BindAddress(%q) = %q, %v; want %q, %v", tt.in, got, on, tt.want, tt.wantOn)
		}
	}
}

// parse registers every flag of Flags on a new flag set and parses args.
func parse(t *testing.T, args ...string) *Flags {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := &Flags{}
	f.AddKubeconfig(fs)
	f.AddClientLimits(fs)
	f.AddMetrics(fs, true)
	f.AddProbes(fs, "ready")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

func kubeconfig(server string) string {
	return `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: ` + server + `
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
}
