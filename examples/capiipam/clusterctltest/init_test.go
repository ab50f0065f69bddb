package clusterctltest

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestClusterctlInit: clusterctl init --ipam vmnetkit, from a file
// repository of the release assets, installs capiipam into a real API
// server: its inventory entry, every object of its components labelled
// with the provider, the CRDs with the contract version and the move
// label; then capiipam, as the ServiceAccount init made, answers a claim.
func TestClusterctlInit(t *testing.T) {
	repo := newRepository(t)
	m := newManagementCluster(t, repo)
	ctx := context.Background()

	var providers clusterctlv1.ProviderList
	if err := m.c.List(ctx, &providers); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range providers.Items {
		got = append(got, fmt.Sprintf("%s %s %s in %s", p.Type, p.ProviderName, p.Version, p.Namespace))
	}
	sort.Strings(got)
	want := []string{
		"CoreProvider cluster-api " + repo.capiVersion + " in capi-system",
		"IPAMProvider vmnetkit " + repo.version + " in vmnetkit-system",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("clusterctl's inventory (-want +got):\n%s", diff)
	}

	// What clusterctl adds (its own label) to what the components carry.
	crd := map[string]string{
		clusterv1.ProviderNameLabel:      "ipam-vmnetkit",
		clusterctlv1.ClusterctlLabel:     "",
		clusterv1.GroupVersion.String():  "v1alpha1", // the contract label, cluster.x-k8s.io/v1beta2
		clusterctlv1.ClusterctlMoveLabel: "",
	}
	tests := []struct {
		name       string
		gvk        schema.GroupVersionKind
		namespace  string
		objName    string
		wantLabels map[string]string // all of them, for a CRD; the provider's otherwise
	}{
		{"pool CRD", crdGVK, "", "vmnetippools.ipam.vmnetkit.dev", crd},
		{"global pool CRD", crdGVK, "", "globalvmnetippools.ipam.vmnetkit.dev", crd},
		{"lock CRD", crdGVK, "", "vmnetipaddresslocks.ipam.vmnetkit.dev", crd},
		{"Namespace", gvk("", "v1", "Namespace"), "", "vmnetkit-system", nil},
		{"ServiceAccount", gvk("", "v1", "ServiceAccount"), "vmnetkit-system", "vmnetkit-capiipam", nil},
		{"Deployment", gvk("apps", "v1", "Deployment"), "vmnetkit-system", "vmnetkit-capiipam", nil},
		{"metrics Service", gvk("", "v1", "Service"), "vmnetkit-system", "vmnetkit-capiipam-metrics", nil},
		{"generated ClusterRole", gvk("rbac.authorization.k8s.io", "v1", "ClusterRole"), "", "vmnetkit-capiipam", nil},
		{"metrics reader ClusterRole", gvk("rbac.authorization.k8s.io", "v1", "ClusterRole"), "", "vmnetkit-metrics-reader", nil},
		{"ClusterRoleBinding", gvk("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"), "", "vmnetkit-capiipam", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(tt.gvk)
			if err := m.c.Get(ctx, client.ObjectKey{Namespace: tt.namespace, Name: tt.objName}, u); err != nil {
				t.Fatalf("not installed: %v", err)
			}
			if tt.wantLabels != nil {
				if diff := cmp.Diff(tt.wantLabels, u.GetLabels()); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
				return
			}
			if got := u.GetLabels()[clusterv1.ProviderNameLabel]; got != "ipam-vmnetkit" {
				t.Errorf("label %s = %q, want ipam-vmnetkit", clusterv1.ProviderNameLabel, got)
			}
		})
	}

	dep := &appsv1.Deployment{}
	if err := m.c.Get(ctx, client.ObjectKey{Namespace: "vmnetkit-system", Name: "vmnetkit-capiipam"}, dep); err != nil {
		t.Fatal(err)
	}
	if got, want := dep.Spec.Template.Spec.Containers[0].Image, imageRepository+"/vmnetkit-capiipam:"+repo.version; got != want {
		t.Errorf("the Deployment's image = %s, want %s (the config's images setting)", got, want)
	}

	_, _ = startProvider(t, m)
	ns := kubetest.CreateNamespace(t, m.c, "init")
	cluster := createProvisionedCluster(t, m.c, ns, "workload")
	createEventually(t, m.c, &v1alpha1.VMNetIPPool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nodes"},
		Spec: v1alpha1.PoolSpec{Addresses: []string{"10.10.0.10-10.10.0.99"}, Prefix: 24, Gateway: "10.10.0.1"}})
	claim := newClaim(cluster, "workload-md-0", v1alpha1.PoolKind, "nodes")
	createEventually(t, m.c, claim)
	kubetest.Eventually(t, 60*time.Second, "the claim is served", func() (bool, string) {
		if err := m.c.Get(ctx, client.ObjectKeyFromObject(claim), claim); err != nil {
			return false, err.Error()
		}
		return ready(claim), fmt.Sprintf("status %+v", claim.Status)
	})
	ip := &ipamv1.IPAddress{}
	if err := m.c.Get(ctx, client.ObjectKeyFromObject(claim), ip); err != nil {
		t.Fatal(err)
	}
	if ip.Spec.Address != "10.10.0.10" || ip.Spec.Gateway != "10.10.0.1" {
		t.Errorf("IPAddress %s via %s, want the pool's first, 10.10.0.10 via 10.10.0.1", ip.Spec.Address, ip.Spec.Gateway)
	}
}

var crdGVK = gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition")

func gvk(group, version, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
}
