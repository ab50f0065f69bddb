package manager

import (
	"flag"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vmnetkit/vmnetkit/examples/internal/command"
)

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
			o := Options(parse(t, tt.args...), runtime.NewScheme(), "id")
			g := got{Metrics: o.Metrics.BindAddress, Probe: o.HealthProbeBindAddress, Secure: o.Metrics.SecureServing,
				LeaderElect: o.LeaderElection, LeaseNamespace: o.LeaderElectionNamespace}
			for ns := range o.Cache.DefaultNamespaces {
				g.Namespaces = append(g.Namespaces, ns)
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("Options (-want +got):\n%s", diff)
			}
			if o.Cache.DefaultTransform == nil {
				t.Error("Options: no cache transform; want managedFields stripped (TestCacheOptions)")
			}
			if o.LeaderElectionID != "id" || !o.LeaderElectionReleaseOnCancel {
				t.Errorf("leader election id %q, release on cancel %v; want %q, true", o.LeaderElectionID, o.LeaderElectionReleaseOnCancel, "id")
			}
		})
	}
}

// TestCacheOptions: the cache keeps no managedFields, and the rest of an
// object as it came.
func TestCacheOptions(t *testing.T) {
	obj := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"k": "v"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate}}},
		Data: map[string]string{"x": "y"},
	}
	want := obj.DeepCopy()
	want.ManagedFields = nil
	got, err := CacheOptions("").DefaultTransform(obj)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DefaultTransform (-want +got):\n%s", diff)
	}
}

func parse(t *testing.T, args ...string) *command.Flags {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := AddFlags(fs, "works")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}
