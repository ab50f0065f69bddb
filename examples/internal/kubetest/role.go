package kubetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// GrantRole creates, through the admin config cfg, the ClusterRole of the
// file rolePath (a generated config/rbac/role.yaml) under the name user,
// and binds it to user, who then holds that role and nothing else (envtest
// grants an impersonated user no other permission). Run a command as user
// with Kubeconfig, or a client with Impersonate.
func GrantRole(t testing.TB, cfg *rest.Config, rolePath, user string) *rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile(rolePath)
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatalf("%s: %v", rolePath, err)
	}
	role.Name = user
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := c.Create(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
	}
	return role
}

// Kubeconfig writes a kubeconfig file that reaches the API server of the
// admin config cfg and impersonates user, and returns its path (in
// t.TempDir()): what a command's -kubeconfig or $KUBECONFIG takes.
func Kubeconfig(t testing.TB, cfg *rest.Config, user string) string {
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

// ModuleCRDs returns the paths of the CRD manifests files (names in
// config/crd/bases) of module, in the module cache at the version the
// calling package is built with (go list -m), so that a test installs
// exactly the schema of the Go types it uses.
func ModuleCRDs(module string, files ...string) ([]string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		return nil, fmt.Errorf("find the %s module: go list -m: %w", module, err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "bases")
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s CRD: %w", module, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
