package controller_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/api/v1alpha1"
	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// TestRole runs the provider as a user that has only the generated role
// (config/rbac/role.yaml), through a namespaced and a global pool and a
// claim's deletion, so the role holds every permission the reconcilers use.
func TestRole(t *testing.T) {
	cfg := capiipamtest.APIServer(t)
	c := kubetest.NewClient(t, cfg, capiipamtest.Scheme)
	ctx := context.Background()
	ns := kubetest.CreateNamespace(t, c, "role")
	data, err := os.ReadFile(filepath.Join("..", "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatalf("role.yaml: %v", err)
	}
	role.Name = ns // cluster-scoped: one per run
	user := "capiipam-" + ns
	capiipamtest.Create(t, c, role, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	})
	restricted := rest.CopyConfig(cfg)
	restricted.Impersonate = rest.ImpersonationConfig{UserName: user}
	capiipamtest.StartManager(t, restricted, ns, "epoch-role", nil)

	global := &v1alpha1.GlobalVMNetIPPool{ObjectMeta: metav1.ObjectMeta{Name: ns}, Spec: v1alpha1.PoolSpec{Addresses: []string{"fd00:7::/120"}, Prefix: 120}}
	capiipamtest.Create(t, c, global,
		capiipamtest.NewPool(ns, "net", v1alpha1.PoolSpec{Addresses: []string{"10.7.0.0/24"}, Prefix: 24}),
		capiipamtest.NewClaim(ns, "v4", capiipamtest.PoolRef(v1alpha1.PoolKind, "net")),
		capiipamtest.NewClaim(ns, "v6", capiipamtest.PoolRef(v1alpha1.GlobalPoolKind, global.Name)))
	capiipamtest.WaitAddress(t, c, ns, "v4")
	capiipamtest.WaitAddress(t, c, ns, "v6")
	claim := &ipamv1.IPAddressClaim{ObjectMeta: capiipamtest.MetaOf(ns, "v4")}
	if err := c.Delete(ctx, claim); err != nil {
		t.Fatal(err)
	}
	kubetest.Eventually(t, 15*time.Second, "claim and IPAddress gone", func() (bool, string) {
		return !capiipamtest.Get(t, c, claim.DeepCopy()) && !capiipamtest.Get(t, c, &ipamv1.IPAddress{ObjectMeta: capiipamtest.MetaOf(ns, "v4")}), "still there"
	})
}
