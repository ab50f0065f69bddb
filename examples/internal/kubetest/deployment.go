package kubetest

import (
	"io"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
)

// CheckControllerDeployment checks the Deployment name of all as every
// controller command's config/manager must be: one container that runs the
// command with flags it parses (parse is the command's own flag parser), probes and metrics port that those
// flags open, /metrics behind -metrics-secure, -leader-elect on, and a
// ServiceAccount that holds the generated role name. It returns the
// Deployment and its container for the command's own checks.
func CheckControllerDeployment[F interface{ Shared() *command.Flags }](t testing.TB, all []Manifest, name string, parse func(args []string, stderr io.Writer) (F, error)) (*appsv1.Deployment, corev1.Container) {
	t.Helper()
	dep := &appsv1.Deployment{}
	Typed(t, all, "Deployment", name, dep)
	if len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(dep.Spec.Template.Spec.Containers))
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	parsed, err := parse(ctr.Args, io.Discard)
	if err != nil {
		t.Fatalf("the Deployment's args %q: %v", ctr.Args, err)
	}
	f := parsed.Shared()
	CheckProbes(t, ctr, f.ProbeAddr, f.MetricsAddr)
	// Two replicas are what a kubebuilder user expects, and they are safe
	// only under leader election.
	if !f.MetricsSecure || !f.LeaderElect {
		t.Errorf("-metrics-secure=%v -leader-elect=%v, want both on in a Deployment", f.MetricsSecure, f.LeaderElect)
	}
	CheckBinding(t, all, dep.Namespace, dep.Spec.Template.Spec, name)
	return dep, ctr
}
