package kubetest

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Manifest is one YAML document of an adapter's config/.
type Manifest struct {
	File string
	Obj  *unstructured.Unstructured
}

// ReadManifests returns every document of the YAML files in the folders
// dirs of config (for example "config" and "crd", "rbac", "manager",
// "samples", in the order a user applies them), in kubectl's order: folders
// as given, files by name, documents in file order. An empty folder fails
// t.
func ReadManifests(t testing.TB, config string, dirs ...string) []Manifest {
	t.Helper()
	var out []Manifest
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(config, dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no manifests in %s", filepath.Join(config, dir))
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, doc := range bytes.Split(data, []byte("\n---")) {
				if len(bytes.TrimSpace(doc)) == 0 {
					continue
				}
				u := &unstructured.Unstructured{}
				if err := yaml.Unmarshal(doc, &u.Object); err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				if len(u.Object) == 0 { // comments only
					continue
				}
				out = append(out, Manifest{File: file, Obj: u})
			}
		}
	}
	return out
}

// ApplyManifests applies all to the API server of cfg with server-side
// apply, as `kubectl apply --server-side` would: Namespaces for real (the
// rest needs them), every other object with dry-run, so the API server
// validates each one (schema, RBAC rules, probes, CRD-typed samples)
// without running anything. A manifest of a folder named "samples" goes to
// namespace "default", the user's. It fails t for each object the API
// server refuses and for a namespaced object that comes before its
// Namespace, and returns how many objects of each kind it applied.
func ApplyManifests(t testing.TB, cfg *rest.Config, all []Manifest) map[string]int {
	t.Helper()
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	seen := map[string]bool{"default": true}
	for _, m := range all {
		if m.Obj.GetKind() == "Namespace" {
			seen[m.Obj.GetName()] = true
		}
		if ns := m.Obj.GetNamespace(); ns != "" && !seen[ns] {
			t.Errorf("%s: %s %s/%s comes before its Namespace", m.File, m.Obj.GetKind(), ns, m.Obj.GetName())
		}
	}
	kinds := map[string]int{}
	for _, pass := range []string{"namespaces", "rest"} {
		for _, m := range all {
			u := m.Obj.DeepCopy()
			isNS := u.GetKind() == "Namespace"
			if isNS != (pass == "namespaces") {
				continue
			}
			opts := []client.PatchOption{client.FieldOwner("vmnetkit-manifests-test"), client.ForceOwnership}
			if !isNS {
				opts = append(opts, client.DryRunAll)
			}
			if filepath.Base(filepath.Dir(m.File)) == "samples" {
				u.SetNamespace("default")
			}
			if err := c.Patch(ctx, u, client.Apply, opts...); err != nil {
				t.Errorf("%s: apply %s %s: %v", m.File, u.GetKind(), u.GetName(), err)
				continue
			}
			kinds[u.GetKind()]++
		}
	}
	return kinds
}

// Typed converts the one manifest of kind and name in all into obj; none or
// more than one fails t.
func Typed(t testing.TB, all []Manifest, kind, name string, obj any) {
	t.Helper()
	var found []Manifest
	for _, m := range all {
		if m.Obj.GetKind() == kind && m.Obj.GetName() == name {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d manifests of %s %q in config/, want 1", len(found), kind, name)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(found[0].Obj.Object, obj, true); err != nil {
		t.Fatalf("%s: %s %s: %v", found[0].File, kind, name, err)
	}
}

// CheckProbes checks that ctr's liveness probe is GET /healthz and its
// readiness probe GET /readyz, both on the port of probeAddr (the
// -health-probe-bind-address the command parsed from ctr's args), and that
// its container port named "metrics" is the port of metricsAddr
// (-metrics-bind-address). Ports may be named or numbered.
func CheckProbes(t testing.TB, ctr corev1.Container, probeAddr, metricsAddr string) {
	t.Helper()
	probePort := flagPort(t, "-health-probe-bind-address", probeAddr)
	for _, p := range []struct {
		what  string
		probe *corev1.Probe
		path  string
	}{{"livenessProbe", ctr.LivenessProbe, "/healthz"}, {"readinessProbe", ctr.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s: no HTTP probe", p.what)
			continue
		}
		if p.probe.HTTPGet.Path != p.path || ContainerPort(t, ctr, p.probe.HTTPGet.Port) != probePort {
			t.Errorf("%s: GET %s on port %v, want %s on %d (-health-probe-bind-address=%s)",
				p.what, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port.String(), p.path, probePort, probeAddr)
		}
	}
	metricsPort := flagPort(t, "-metrics-bind-address", metricsAddr)
	if got := ContainerPort(t, ctr, intstr.FromString("metrics")); got != metricsPort {
		t.Errorf("container port metrics = %d, want %d (-metrics-bind-address=%s)", got, metricsPort, metricsAddr)
	}
}

// ContainerPort resolves p, a port number or the name of one of ctr's
// ports; an unknown name fails t and returns 0.
func ContainerPort(t testing.TB, ctr corev1.Container, p intstr.IntOrString) int32 {
	t.Helper()
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range ctr.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	t.Errorf("no container port named %q", p.StrVal)
	return 0
}

// flagPort is the fixed port of a bind address flag; an address without
// one (":0", "0", a bad address) fails t.
func flagPort(t testing.TB, flag, addr string) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("%s=%q: %v", flag, addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n == 0 {
		t.Fatalf("%s=%q: not a fixed port", flag, addr)
	}
	return int32(n)
}

// CheckBinding checks that the pod spec runs as a ServiceAccount of all in
// namespace, and that a ClusterRoleBinding of all binds the ClusterRole
// role of all (the generated one) to that account and nothing else.
func CheckBinding(t testing.TB, all []Manifest, namespace string, pod corev1.PodSpec, role string) {
	t.Helper()
	sa := &corev1.ServiceAccount{}
	Typed(t, all, "ServiceAccount", pod.ServiceAccountName, sa)
	if sa.Namespace != namespace {
		t.Errorf("ServiceAccount %s/%s, want it in %s", sa.Namespace, sa.Name, namespace)
	}
	cr := &rbacv1.ClusterRole{}
	Typed(t, all, "ClusterRole", role, cr)
	want := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: sa.Namespace, Name: sa.Name}
	var bound bool
	for _, m := range all {
		if m.Obj.GetKind() != "ClusterRoleBinding" {
			continue
		}
		b := &rbacv1.ClusterRoleBinding{}
		Typed(t, all, "ClusterRoleBinding", m.Obj.GetName(), b)
		if b.RoleRef.Name != role {
			continue
		}
		if b.RoleRef.Kind != "ClusterRole" || len(b.Subjects) != 1 || b.Subjects[0] != want {
			t.Errorf("ClusterRoleBinding %s: %+v to %+v, want ClusterRole %s to %+v", b.Name, b.RoleRef, b.Subjects, role, want)
		}
		bound = true
	}
	if !bound {
		t.Errorf("no ClusterRoleBinding of ClusterRole %s", role)
	}
}

// WantKinds fails t for each of kinds that kinds (what ApplyManifests
// returned) has none of.
func WantKinds(t testing.TB, applied map[string]int, kinds ...string) {
	t.Helper()
	for _, kind := range kinds {
		if applied[kind] == 0 {
			t.Errorf("no %s applied from config/ (applied: %v)", kind, applied)
		}
	}
}
