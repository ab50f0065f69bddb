package main

import (
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// readManifests returns every document of config/, in the order a user
// applies its folders.
func readManifests(t *testing.T) []kubetest.Manifest {
	t.Helper()
	return kubetest.ReadManifests(t, "config", "crd", "rbac", "manager", "samples")
}

// TestManifests applies every manifest of config/ to the real API server
// with server-side apply: Namespaces for real (the rest needs them), the
// rest with dry-run, so the API server validates each object (schema, RBAC
// rules, probes) without running anything.
func TestManifests(t *testing.T) {
	cfg := kubetest.Start(t, filepath.Join("config", "crd"))
	applied := kubetest.ApplyManifests(t, cfg, readManifests(t))
	kubetest.WantKinds(t, applied, "Namespace", "ServiceAccount", "Deployment", "Service", "ClusterRole", "ClusterRoleBinding",
		"CustomResourceDefinition", "IPPool", "VMNetworkConfig")
}

// TestDeploymentMatchesFlags checks that the Deployment of config/manager runs
// the command with flags it parses, that its probes and ports are those the
// flags open, that its ServiceAccount is bound to the generated role, and
// that the metrics Service targets the metrics port.
func TestDeploymentMatchesFlags(t *testing.T) {
	all := readManifests(t)
	dep, ctr := kubetest.CheckControllerDeployment(t, all, "vmnetkit-operator", parseFlags)
	metricsPort := kubetest.ContainerPort(t, ctr, intstr.FromString("metrics"))
	svc := &corev1.Service{}
	kubetest.Typed(t, all, "Service", "vmnetkit-operator-metrics", svc)
	if len(svc.Spec.Ports) != 1 || kubetest.ContainerPort(t, ctr, svc.Spec.Ports[0].TargetPort) != metricsPort || svc.Namespace != dep.Namespace {
		t.Errorf("metrics Service %s/%s ports %+v: want one targeting %d in %s", svc.Namespace, svc.Name, svc.Spec.Ports, metricsPort, dep.Namespace)
	}
	for k, v := range svc.Spec.Selector {
		if dep.Spec.Template.Labels[k] != v {
			t.Errorf("metrics Service selects %s=%s, the Deployment's pods have %q", k, v, dep.Spec.Template.Labels[k])
		}
	}
	ns := &corev1.Namespace{}
	kubetest.Typed(t, all, "Namespace", "vmnetkit-system", ns)
	if dep.Namespace != ns.Name {
		t.Errorf("Deployment in %s, want %s", dep.Namespace, ns.Name)
	}
}
