package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/yaml"
)

// TestComponentsCurrent: the committed ipam-components.yaml is what
// config/ builds today.
func TestComponentsCurrent(t *testing.T) {
	want, err := Components(filepath.Join("..", "config"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", ComponentsFile))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("capiipam/%s is stale: run make capiipam-components (-want +got):\n%s", ComponentsFile, diff)
	}
}

// TestComponentsLabels: every object of the components carries the
// provider label; each CRD the contract version it serves and the move
// label; every namespaced object is in the one Namespace.
func TestComponentsLabels(t *testing.T) {
	data, err := Components(filepath.Join("..", "config"))
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]*unstructured.Unstructured{}
	var namespace string
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			t.Fatal(err)
		}
		if len(u.Object) == 0 {
			continue
		}
		objs[u.GetKind()+"/"+u.GetName()] = u
		if u.GetKind() == "Namespace" {
			namespace = u.GetName()
		}
	}
	crd := map[string]string{
		ProviderLabelKey: ProviderLabel,
		clusterv1.GroupVersion.Group + "/v1beta2": "v1alpha1",
		clusterctlv1.ClusterctlMoveLabel:          "",
	}
	provider := map[string]string{ProviderLabelKey: ProviderLabel}
	tests := []struct {
		name   string
		labels map[string]string
	}{
		{"CustomResourceDefinition/vmnetippools.ipam.vmnetkit.dev", crd},
		{"CustomResourceDefinition/globalvmnetippools.ipam.vmnetkit.dev", crd},
		{"CustomResourceDefinition/vmnetipaddresslocks.ipam.vmnetkit.dev", crd},
		{"ClusterRole/vmnetkit-capiipam", provider},
		{"ClusterRole/vmnetkit-metrics-reader", provider},
		{"ClusterRoleBinding/vmnetkit-capiipam", provider},
		{"Namespace/vmnetkit-system", provider},
		{"ServiceAccount/vmnetkit-capiipam", provider},
		{"Deployment/vmnetkit-capiipam", map[string]string{ProviderLabelKey: ProviderLabel, "app.kubernetes.io/name": "vmnetkit-capiipam"}},
		{"Service/vmnetkit-capiipam-metrics", map[string]string{ProviderLabelKey: ProviderLabel, "app.kubernetes.io/name": "vmnetkit-capiipam"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok := objs[tt.name]
			if !ok {
				t.Fatalf("not in the components")
			}
			if diff := cmp.Diff(tt.labels, u.GetLabels()); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if ns := u.GetNamespace(); ns != "" && ns != namespace {
				t.Errorf("namespace %q, want the components' Namespace %q", ns, namespace)
			}
		})
	}
	if len(objs) != len(tests) {
		t.Errorf("%d objects in the components, %d named here: name each new one", len(objs), len(tests))
	}
}

// TestMetadata: metadata.yaml is clusterctl's Metadata, and its newest
// series implements the contract of the Cluster API this module builds
// with.
func TestMetadata(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	var m clusterctlv1.Metadata
	if err := yaml.UnmarshalStrict(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Kind != "Metadata" || m.APIVersion != clusterctlv1.GroupVersion.String() {
		t.Errorf("%s/%s, want %s Metadata", m.APIVersion, m.Kind, clusterctlv1.GroupVersion)
	}
	version, err := NewestVersion(data)
	if err != nil {
		t.Fatal(err)
	}
	s := m.GetReleaseSeriesForVersion(utilversion.MustParseSemantic(version))
	if s == nil || s.Contract != clusterv1.GroupVersion.Version {
		t.Errorf("release series of %s = %+v, want contract %s", version, s, clusterv1.GroupVersion.Version)
	}
}

func TestNewestVersion(t *testing.T) {
	tests := []struct {
		name     string
		metadata string
		want     string
		wantErr  bool
	}{
		{name: "one series", metadata: "releaseSeries: [{major: 0, minor: 1, contract: v1beta2}]", want: "v0.1.0"},
		{name: "newest first or last", metadata: "releaseSeries: [{major: 0, minor: 2, contract: v1beta2}, {major: 1, minor: 0, contract: v1beta2}, {major: 0, minor: 9, contract: v1beta1}]", want: "v1.0.0"},
		{name: "no series", metadata: "releaseSeries: []", wantErr: true},
		{name: "unknown field", metadata: "releases: []", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewestVersion([]byte(tt.metadata))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("NewestVersion() = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestWriteRepository: the layout is clusterctl's file repository's,
// {repo}/ipam-vmnetkit/{version}/ with both files.
func TestWriteRepository(t *testing.T) {
	repo := t.TempDir()
	path, err := WriteRepository(repo, "v0.1.0", []byte("components"), []byte("metadata"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repo, "ipam-vmnetkit", "v0.1.0")
	if path != filepath.Join(dir, "ipam-components.yaml") {
		t.Errorf("path %s, want %s", path, filepath.Join(dir, "ipam-components.yaml"))
	}
	for file, want := range map[string]string{"ipam-components.yaml": "components", "metadata.yaml": "metadata"} {
		got, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", file, got, err, want)
		}
	}
}
