package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantErr  error
		wantCode int // command.ExitCode of run's error
		stderr   string
	}{
		{name: "help", args: []string{"-h"}, wantErr: flag.ErrHelp, wantCode: 0, stderr: "-leader-elect"},
		{name: "unknown flag", args: []string{"-no-such-flag"}, wantCode: 1, stderr: "no-such-flag"},
		{name: "stray argument", args: []string{"extra"}, wantCode: 1, stderr: `operator: unexpected arguments ["extra"]`},
		{name: "limit not positive", args: []string{"-max-allocations-per-pool=0"}, wantCode: 1, stderr: "-max-allocations-per-pool=0: must be positive"},
		{name: "missing kubeconfig file", args: []string{"-kubeconfig", filepath.Join(t.TempDir(), "none")}, wantCode: 1, stderr: "operator: kubeconfig:"},
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
			if code := command.ExitCode("operator", err, &stderr); code != tt.wantCode {
				t.Errorf("exit code of run(%q) = %d, want %d", tt.args, code, tt.wantCode)
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("run(%q) printed %q, want it to mention %q", tt.args, stderr.String(), tt.stderr)
			}
		})
	}
}

// TestHelp checks that -h lists every flag with a text that says what it
// does, the logging flags included.
func TestHelp(t *testing.T) {
	var stderr bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("parseFlags(-h) = %v, want flag.ErrHelp", err)
	}
	help := stderr.String()
	for _, want := range []string{
		"-health-probe-bind-address", "/readyz (readiness: the informer caches are synced)",
		"-metrics-bind-address", "-metrics-secure", "SubjectAccessReview", "-metrics-cert-dir",
		"-max-allocations-per-pool", "CapacityLimited (default 20000)",
		"-leader-elect", "-namespace", "-epoch", "-concurrent-claims", "-kubeconfig",
		"-v value", "-vmodule value",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("-h does not mention %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "testing logger") {
		t.Errorf("-h still calls -v the testing logger:\n%s", help)
	}
}

// operatorUser is the user the command runs as in these tests: it has only
// the generated role (config/rbac/role.yaml), so the role is checked too.
const operatorUser = "vmnetkit-operator-test"

func init() {
	// The tests run the command more than once in this process;
	// controller-runtime refuses a second controller of the same name.
	setupOptions.SkipNameValidation = true
}

// cluster is a test's API server with the CRDs, the operator's role, and the
// samples in namespace "vms".
type cluster struct {
	cfg        *rest.Config
	c          client.Client
	kubeconfig string // as operatorUser
	role       *rbacv1.ClusterRole
	pool       *v1alpha1.IPPool
	claim      *v1alpha1.VMNetworkConfig
}

// newCluster starts the API server with the operator's CRDs and those in
// crdPaths (KubeVirt's, for the tests that need them).
func newCluster(t *testing.T, crdPaths ...string) *cluster {
	t.Helper()
	k := &cluster{cfg: kubetest.Start(t, append([]string{filepath.Join("config", "crd")}, crdPaths...)...)}
	k.kubeconfig = kubetest.Kubeconfig(t, k.cfg, operatorUser)
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var err error
	if k.c, err = client.New(k.cfg, client.Options{Scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := k.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "vms"}}); err != nil {
		t.Fatal(err)
	}
	k.role = &rbacv1.ClusterRole{}
	readYAML(t, filepath.Join("config", "rbac", "role.yaml"), k.role)
	if err := k.c.Create(ctx, k.role); err != nil {
		t.Fatal(err)
	}
	k.pool, k.claim = &v1alpha1.IPPool{}, &v1alpha1.VMNetworkConfig{}
	for file, obj := range map[string]client.Object{"ippool.yaml": k.pool, "vmnetworkconfig.yaml": k.claim} {
		readYAML(t, filepath.Join("config", "samples", file), obj)
		obj.SetNamespace("vms")
		if err := k.c.Create(ctx, obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	return k
}

// bindRole grants operatorUser the generated role.
func (k *cluster) bindRole(t *testing.T) {
	t.Helper()
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: operatorUser},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: k.role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: operatorUser}},
	}
	if err := k.c.Create(context.Background(), binding); err != nil {
		t.Fatal(err)
	}
}

// start runs the command with -kubeconfig (as operatorUser), -namespace vms,
// and args; t.Cleanup stops it and checks it returned nil.
func (k *cluster) start(t *testing.T, epoch string, args ...string) *logtest.Buffer {
	t.Helper()
	args = append([]string{"-kubeconfig", k.kubeconfig, "-namespace", "vms", "-epoch", epoch}, args...)
	return kubetest.RunCommand(t, run, args...)
}

// waitClaim waits until the sample claim has its two addresses.
func (k *cluster) waitClaim(t *testing.T, log *logtest.Buffer) {
	t.Helper()
	kubetest.Eventually(t, 60*time.Second, "the claim with its two addresses", func() (bool, string) {
		got := &v1alpha1.VMNetworkConfig{}
		if err := k.c.Get(context.Background(), client.ObjectKeyFromObject(k.claim), got); err != nil {
			t.Fatal(err)
		}
		ok := len(got.Status.NICs) == 2 && got.Status.NICs[1].Address == "192.168.50.200"
		return ok, fmt.Sprintf("status %+v; operator log:\n%s", got.Status, log.String())
	})
}

// TestRun runs the command as a user would, with -kubeconfig, against a real
// API server, and applies the README's samples. It starts before the user
// may list anything, so its informer caches cannot sync: /healthz answers
// 200 and /readyz does not, until the role is bound. Then the claim gets its
// addresses, and /metrics (plain HTTP, -metrics-secure=false) has the pool's
// series. A pool that cannot be built leaves the process ready.
func TestRun(t *testing.T) {
	k := newCluster(t)
	probes, metrics := kubetest.FreeAddr(t), kubetest.FreeAddr(t)
	allocated := allocationsSoFar(t, k.pool.Name) + 2
	log := k.start(t, "from-main", "-health-probe-bind-address", probes, "-metrics-bind-address", metrics, "-metrics-secure=false")

	waitStatus(t, "http://"+probes+"/healthz", nil, http.StatusOK)
	// Not ready while the caches cannot sync: every probe for 3 seconds.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if code, body := get(t, "http://"+probes+"/readyz", nil); code == http.StatusOK {
			t.Fatalf("/readyz = %d %q before the caches synced (the user may not list yet)", code, body)
		}
	}
	k.bindRole(t)
	waitStatus(t, "http://"+probes+"/readyz", nil, http.StatusOK)
	waitStatus(t, "http://"+probes+"/healthz", nil, http.StatusOK)
	k.waitClaim(t, log)

	got := &v1alpha1.IPPool{}
	if err := k.c.Get(context.Background(), client.ObjectKeyFromObject(k.pool), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.CacheEpoch != "from-main" || got.Status.Used != "2" {
		t.Errorf("pool status: epoch %q used %q, want epoch %q used 2", got.Status.CacheEpoch, got.Status.Used, "from-main")
	}
	series := poolSeries(got, allocated)
	kubetest.Eventually(t, 30*time.Second, "the pool's series on /metrics", func() (bool, string) {
		_, body := get(t, "http://"+metrics+"/metrics", nil)
		return missing(body, series) == nil, fmt.Sprintf("missing %q", missing(body, series))
	})

	// A pool whose cache cannot be built (its CIDR is invalid) reads
	// CacheReady=False, and the process stays ready: a restart would not help.
	bad := &v1alpha1.IPPool{ObjectMeta: metav1.ObjectMeta{Namespace: "vms", Name: "bad"},
		Spec: v1alpha1.IPPoolSpec{Network: "n", CIDR: "10.0.0.0/33"}}
	if err := k.c.Create(context.Background(), bad); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, 30*time.Second, "CacheReady=False/BuildFailed on the invalid pool", func() (bool, string) {
		if err := k.c.Get(context.Background(), client.ObjectKeyFromObject(bad), bad); err != nil {
			return false, err.Error()
		}
		for _, c := range bad.Status.Conditions {
			if c.Type == "CacheReady" {
				return c.Status == metav1.ConditionFalse && c.Reason == "BuildFailed", string(c.Status) + "/" + c.Reason
			}
		}
		return false, "no CacheReady"
	})
	if code, body := get(t, "http://"+probes+"/readyz", nil); code != http.StatusOK {
		t.Errorf("/readyz = %d %q with a pool whose CacheReady is False, want 200", code, body)
	}
	badSeries := `vmnetkit_ippool_cache_ready{namespace="vms",pool="bad"} 0`
	if _, body := get(t, "http://"+metrics+"/metrics", nil); missing(body, []string{badSeries}) != nil {
		t.Errorf("/metrics lacks %q", badSeries)
	}
}

// poolSeries returns the lines /metrics must hold for pool p (a sample of
// the README with its claim of two addresses, in namespace vms) after this
// process handed out allocated addresses in it.
func poolSeries(p *v1alpha1.IPPool, allocated float64) []string {
	l := fmt.Sprintf(`{namespace="%s",pool="%s"}`, p.Namespace, p.Name)
	return []string{
		"vmnetkit_ippool_size_addresses" + l + " " + p.Status.Size,
		"vmnetkit_ippool_used_addresses" + l + " 2",
		"vmnetkit_ippool_available_addresses" + l + " " + p.Status.Available,
		"vmnetkit_ippool_max_allocations" + l + " 20000",
		"vmnetkit_ippool_restore_problems" + l + " 0",
		"vmnetkit_ippool_cache_ready" + l + " 1",
		"vmnetkit_ippool_allocations_total" + l + " " + fmt.Sprint(allocated),
	}
}

// allocationsSoFar returns the value of vmnetkit_ippool_allocations_total
// for pool vms/name in this process (the tests run the command more than
// once; the registry is the process's).
func allocationsSoFar(t *testing.T, name string) float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "vmnetkit_ippool_allocations_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["namespace"] == "vms" && labels["pool"] == name {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// missing returns the lines of want that body does not hold.
func missing(body string, want []string) []string {
	have := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		have[line] = true
	}
	var out []string
	for _, w := range want {
		if !have[w] {
			out = append(out, w)
		}
	}
	return out
}

// TestRunMetricsSecure runs the command with -metrics-secure: /metrics
// answers 401 without a token, 403 with the token of a ServiceAccount that
// may not read it, and 200 with the pool's series to one bound to
// config/manager/metrics_reader_role.yaml (TokenReview and SubjectAccessReview
// by the real API server).
//
// The first process serves the certificate of -metrics-cert-dir (the client
// verifies it); a second one, without it, a self-signed certificate made at
// start.
func TestRunMetricsSecure(t *testing.T) {
	k := newCluster(t)
	k.bindRole(t)
	metrics, metrics2 := kubetest.FreeAddr(t), kubetest.FreeAddr(t)
	certDir := t.TempDir()
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(certDir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(certPEM) {
		t.Fatal("no certificate in the generated PEM")
	}
	verifying := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	allocated := allocationsSoFar(t, k.pool.Name) + 2
	log := k.start(t, "secure", "-metrics-bind-address", metrics, "-metrics-secure", "-metrics-cert-dir", certDir)
	k.waitClaim(t, log)
	// It watches another namespace: the pool has one owner.
	k.start(t, "secure-self-signed", "-metrics-bind-address", metrics2, "-namespace", "default")
	waitStatus(t, "https://"+metrics2+"/metrics", nil, http.StatusUnauthorized)
	kubetest.Eventually(t, 30*time.Second, "the -metrics-cert-dir certificate served", func() (bool, string) {
		resp, err := verifying.Get("https://" + metrics + "/metrics")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusUnauthorized, resp.Status
	})

	ctx := context.Background()
	reader := &rbacv1.ClusterRole{}
	readYAML(t, filepath.Join("config", "manager", "metrics_reader_role.yaml"), reader)
	for _, obj := range []client.Object{
		reader,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "vms", Name: "scraper"}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "vms", Name: "stranger"}},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "scraper"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "vms", Name: "scraper"}},
		},
	} {
		if err := k.c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := kubernetes.NewForConfig(k.cfg)
	if err != nil {
		t.Fatal(err)
	}
	token := func(sa string) http.Header {
		tr, err := cs.CoreV1().ServiceAccounts("vms").CreateToken(ctx, sa, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return http.Header{"Authorization": {"Bearer " + tr.Status.Token}}
	}
	url := "https://" + metrics + "/metrics"
	waitStatus(t, url, nil, http.StatusUnauthorized)
	if code, body := get(t, url, token("stranger")); code != http.StatusForbidden {
		t.Errorf("GET /metrics as a ServiceAccount without the reader role = %d %q, want 403", code, body)
	}
	if code, _ := get(t, "http://"+metrics+"/metrics", nil); code != http.StatusBadRequest {
		t.Errorf("GET /metrics over plain HTTP = %d, want 400 (the server speaks TLS only)", code)
	}
	got := &v1alpha1.IPPool{}
	if err := k.c.Get(ctx, client.ObjectKeyFromObject(k.pool), got); err != nil {
		t.Fatal(err)
	}
	scraper := token("scraper")
	series := poolSeries(got, allocated)
	kubetest.Eventually(t, 30*time.Second, "the pool's series on /metrics", func() (bool, string) {
		code, body := get(t, url, scraper)
		return code == http.StatusOK && missing(body, series) == nil, fmt.Sprintf("%d, missing %q", code, missing(body, series))
	})
}

// insecureClient talks to the operator's self-signed HTTPS endpoints.
var insecureClient = &http.Client{
	Timeout:   5 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
}

// get returns the status code and body of GET url with header h; a
// connection error reads as code 0 with the error as body.
func get(t *testing.T, url string, h http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := insecureClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err.Error()
	}
	return resp.StatusCode, string(body)
}

// waitStatus polls GET url until it answers want.
func waitStatus(t *testing.T, url string, h http.Header, want int) {
	t.Helper()
	kubetest.Eventually(t, 60*time.Second, fmt.Sprintf("GET %s = %d", url, want), func() (bool, string) {
		code, body := get(t, url, h)
		return code == want, fmt.Sprintf("%d %q", code, body)
	})
}

// readYAML decodes the YAML file path into obj, strictly.
func readYAML(t *testing.T, path string, obj any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
