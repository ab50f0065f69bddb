package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr error
		stderr  string
	}{
		{name: "help", args: []string{"-h"}, wantErr: flag.ErrHelp, stderr: "-leader-elect"},
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

// TestRun runs the command as a user would, with -kubeconfig, against a real
// API server, and applies the README's samples. The command runs as a user
// that has only the generated role (config/rbac), so the role is checked too.
func TestRun(t *testing.T) {
	cfg := kubetest.Start(t, filepath.Join("config", "crd"))
	const user = "vmnetkit-operator-test"
	kubeconfig := writeKubeconfig(t, cfg, user)

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "vms"}}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	data, err := os.ReadFile(filepath.Join("config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatalf("role.yaml: %v", err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	pool, claim := &v1alpha1.IPPool{}, &v1alpha1.VMNetworkConfig{}
	for file, obj := range map[string]client.Object{"ippool.yaml": pool, "vmnetworkconfig.yaml": claim} {
		data, err := os.ReadFile(filepath.Join("config", "samples", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(data, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		obj.SetNamespace("vms")
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	var stderr lockedBuffer // the logger writes from many goroutines
	go func() {
		done <- run(runCtx, []string{"-kubeconfig", kubeconfig, "-namespace", "vms", "-epoch", "from-main"}, &stderr)
	}()

	deadline := time.Now().Add(60 * time.Second)
	for {
		got := &v1alpha1.VMNetworkConfig{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(claim), got); err != nil {
			t.Fatal(err)
		}
		if len(got.Status.NICs) == 2 && got.Status.NICs[1].Address == "192.168.50.200" {
			t.Logf("claim status: %+v", got.Status.NICs)
			break
		}
		if time.Now().After(deadline) {
			cancel()
			select { // a manager whose caches never synced may not stop at once
			case <-done:
			case <-time.After(30 * time.Second):
			}
			t.Fatalf("the claim got no addresses: status %+v; operator log:\n%s", got.Status, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run() after cancel = %v", err)
	}
	got := &v1alpha1.IPPool{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(pool), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.CacheEpoch != "from-main" || got.Status.Used != "2" {
		t.Errorf("pool status: epoch %q used %q, want epoch %q used 2", got.Status.CacheEpoch, got.Status.Used, "from-main")
	}
}

// writeKubeconfig writes cfg (an envtest admin's: client certificates),
// impersonating user, as a kubeconfig file and returns its path.
func writeKubeconfig(t *testing.T, cfg *rest.Config, user string) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken,
		Impersonate: user,
	}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
