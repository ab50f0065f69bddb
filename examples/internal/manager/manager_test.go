package manager

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
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

// TestOptions: the manager options follow the flags, "0" and "" turn a
// server off alike, and the defaults are every server off, no leader
// election, every namespace.
func TestOptions(t *testing.T) {
	type got struct {
		Metrics, Probe string
		Secure         bool
		LeaderElect    bool
		LeaseNamespace string
		Namespaces     []string
	}
	tests := []struct {
		name string
		args []string
		want got
	}{
		{name: "defaults", want: got{Metrics: "0", Probe: "0", Secure: true}},
		{name: "empty is off", args: []string{"-metrics-bind-address=", "-health-probe-bind-address="}, want: got{Metrics: "0", Probe: "0", Secure: true}},
		{name: "deployment", args: []string{"-metrics-bind-address=:8443", "-health-probe-bind-address=:8081", "-leader-elect",
			"-leader-election-namespace=vmnetkit-system", "-namespace=vms", "-metrics-secure=false"},
			want: got{Metrics: ":8443", Probe: ":8081", LeaderElect: true, LeaseNamespace: "vmnetkit-system", Namespaces: []string{"vms"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := parse(t, tt.args...).Options(runtime.NewScheme(), "id")
			g := got{Metrics: o.Metrics.BindAddress, Probe: o.HealthProbeBindAddress, Secure: o.Metrics.SecureServing,
				LeaderElect: o.LeaderElection, LeaseNamespace: o.LeaderElectionNamespace}
			for ns := range o.Cache.DefaultNamespaces {
				g.Namespaces = append(g.Namespaces, ns)
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("Options (-want +got):\n%s", diff)
			}
			if o.LeaderElectionID != "id" || !o.LeaderElectionReleaseOnCancel {
				t.Errorf("leader election id %q, release on cancel %v; want %q, true", o.LeaderElectionID, o.LeaderElectionReleaseOnCancel, "id")
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

func parse(t *testing.T, args ...string) *Flags {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := AddFlags(fs, "works")
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
