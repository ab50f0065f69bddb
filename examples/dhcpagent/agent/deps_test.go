package agent

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoKubernetesClient: the DHCP server and the pool sources it shares
// with the file mode reach no Kubernetes client (client-go) even
// transitively; the API-server mode is package apiserver's, which the
// command wires in. (The IPPool's API types, which poolsource embeds,
// bring apimachinery and controller-runtime's scheme builder: types, not
// a client.)
func TestNoKubernetesClient(t *testing.T) {
	for _, pkg := range []string{".", "../poolsource"} {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Env = append(cmd.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "k8s.io/client-go") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
