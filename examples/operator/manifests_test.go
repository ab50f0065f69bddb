package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// manifestDirs are the folders of config/ a user applies, in order.
var manifestDirs = []string{"crd", "rbac", "manager", "samples"}

// manifest is one YAML document of config/.
type manifest struct {
	file string
	obj  *unstructured.Unstructured
}

// readManifests returns every document of the YAML files in config/'s
// manifestDirs.
func readManifests(t *testing.T) []manifest {
	t.Helper()
	var out []manifest
	for _, dir := range manifestDirs {
		files, err := filepath.Glob(filepath.Join("config", dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no manifests in config/%s", dir)
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
				out = append(out, manifest{file: file, obj: u})
			}
		}
	}
	return out
}

// TestManifests applies every manifest of config/ to the real API server
// with server-side apply: Namespaces for real (the rest needs them), the
// rest with dry-run, so the API server validates each object (schema, RBAC
// rules, probes) without running anything.
func TestManifests(t *testing.T) {
	cfg := kubetest.Start(t, filepath.Join("config", "crd"))
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	all := readManifests(t)
	// kubectl apply -f applies folders in the order given, files in name
	// order, documents in file order: a Namespace of config/ must come
	// before the objects in it.
	seen := map[string]bool{}
	for _, m := range all {
		if m.obj.GetKind() == "Namespace" {
			seen[m.obj.GetName()] = true
		}
		if ns := m.obj.GetNamespace(); ns != "" && !seen[ns] {
			t.Errorf("%s: %s %s/%s comes before its Namespace", m.file, m.obj.GetKind(), ns, m.obj.GetName())
		}
	}
	kinds := map[string]int{}
	for _, pass := range []string{"namespaces", "rest"} {
		for _, m := range all {
			u := m.obj.DeepCopy()
			isNS := u.GetKind() == "Namespace"
			if isNS != (pass == "namespaces") {
				continue
			}
			opts := []client.PatchOption{client.FieldOwner("vmnetkit-manifests-test"), client.ForceOwnership}
			if !isNS {
				opts = append(opts, client.DryRunAll)
			}
			if strings.HasPrefix(m.file, filepath.Join("config", "samples")) {
				u.SetNamespace("default") // samples go to the user's namespace
			}
			if err := c.Patch(ctx, u, client.Apply, opts...); err != nil {
				t.Errorf("%s: apply %s %s: %v", m.file, u.GetKind(), u.GetName(), err)
				continue
			}
			kinds[u.GetKind()]++
		}
	}
	for _, kind := range []string{"Namespace", "ServiceAccount", "Deployment", "Service", "ClusterRole", "ClusterRoleBinding",
		"CustomResourceDefinition", "IPPool", "VMNetworkConfig"} {
		if kinds[kind] == 0 {
			t.Errorf("no %s applied from config/ (applied: %v)", kind, kinds)
		}
	}
}

// typed converts the one manifest of kind and name in all into obj.
func typed(t *testing.T, all []manifest, kind, name string, obj any) {
	t.Helper()
	var found []manifest
	for _, m := range all {
		if m.obj.GetKind() == kind && m.obj.GetName() == name {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d manifests of %s %q in config/, want 1", len(found), kind, name)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(found[0].obj.Object, obj, true); err != nil {
		t.Fatalf("%s: %s %s: %v", found[0].file, kind, name, err)
	}
}

// TestDeploymentMatchesFlags checks that the Deployment of config/manager runs
// the command with flags it parses, that its probes and ports are those the
// flags open, that its ServiceAccount is bound to the generated role, and
// that the metrics Service targets the metrics port.
func TestDeploymentMatchesFlags(t *testing.T) {
	all := readManifests(t)
	dep := &appsv1.Deployment{}
	typed(t, all, "Deployment", "vmnetkit-operator", dep)
	if len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(dep.Spec.Template.Spec.Containers))
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	f, err := parseFlags(ctr.Args, io.Discard)
	if err != nil {
		t.Fatalf("the Deployment's args %q: %v", ctr.Args, err)
	}
	port := func(what string, p intstr.IntOrString) int32 {
		t.Helper()
		if p.Type == intstr.Int {
			return p.IntVal
		}
		for _, cp := range ctr.Ports {
			if cp.Name == p.StrVal {
				return cp.ContainerPort
			}
		}
		t.Errorf("%s: no container port named %q", what, p.StrVal)
		return 0
	}
	flagPort := func(flag, addr string) int32 {
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
	probePort := flagPort("-health-probe-bind-address", f.probeAddr)
	for _, p := range []struct {
		what  string
		probe *corev1.Probe
		path  string
	}{{"livenessProbe", ctr.LivenessProbe, "/healthz"}, {"readinessProbe", ctr.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s: no HTTP probe", p.what)
			continue
		}
		if p.probe.HTTPGet.Path != p.path || port(p.what, p.probe.HTTPGet.Port) != probePort {
			t.Errorf("%s: GET %s on port %v, want %s on %d (-health-probe-bind-address=%s)",
				p.what, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port.String(), p.path, probePort, f.probeAddr)
		}
	}
	metricsPort := flagPort("-metrics-bind-address", f.metricsAddr)
	if got := port("metrics", intstr.FromString("metrics")); got != metricsPort {
		t.Errorf("container port metrics = %d, want %d (-metrics-bind-address=%s)", got, metricsPort, f.metricsAddr)
	}
	if !f.metricsSecure || !f.leaderElect {
		t.Errorf("-metrics-secure=%v -leader-elect=%v, want both on in a Deployment", f.metricsSecure, f.leaderElect)
	}

	svc := &corev1.Service{}
	typed(t, all, "Service", "vmnetkit-operator-metrics", svc)
	if len(svc.Spec.Ports) != 1 || port("Service", svc.Spec.Ports[0].TargetPort) != metricsPort || svc.Namespace != dep.Namespace {
		t.Errorf("metrics Service %s/%s ports %+v: want one targeting %d in %s", svc.Namespace, svc.Name, svc.Spec.Ports, metricsPort, dep.Namespace)
	}
	for k, v := range svc.Spec.Selector {
		if dep.Spec.Template.Labels[k] != v {
			t.Errorf("metrics Service selects %s=%s, the Deployment's pods have %q", k, v, dep.Spec.Template.Labels[k])
		}
	}

	ns, sa := &corev1.Namespace{}, &corev1.ServiceAccount{}
	typed(t, all, "Namespace", "vmnetkit-system", ns)
	typed(t, all, "ServiceAccount", dep.Spec.Template.Spec.ServiceAccountName, sa)
	if dep.Namespace != ns.Name || sa.Namespace != ns.Name || dep.Spec.Template.Spec.ServiceAccountName != sa.Name {
		t.Errorf("Deployment %s/%s runs as %q; ServiceAccount %s/%s; Namespace %s: want one namespace and that account",
			dep.Namespace, dep.Name, dep.Spec.Template.Spec.ServiceAccountName, sa.Namespace, sa.Name, ns.Name)
	}
	role, binding := &rbacv1.ClusterRole{}, &rbacv1.ClusterRoleBinding{}
	typed(t, all, "ClusterRole", "vmnetkit-operator", role)
	typed(t, all, "ClusterRoleBinding", "vmnetkit-operator", binding)
	want := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: sa.Namespace, Name: sa.Name}
	if binding.RoleRef.Name != role.Name || binding.RoleRef.Kind != "ClusterRole" || len(binding.Subjects) != 1 || binding.Subjects[0] != want {
		t.Errorf("ClusterRoleBinding %s: %+v to %+v, want ClusterRole %s to %+v", binding.Name, binding.RoleRef, binding.Subjects, role.Name, want)
	}
}
