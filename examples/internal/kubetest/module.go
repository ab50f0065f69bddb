package kubetest

import (
	"fmt"
	"os/exec"
	"strings"
)

// FindModule returns the folder of module in the module cache and its
// version, the one the calling package is built with (go list -m), for a
// test that reads a file the module ships beside its code (Cluster API's
// metadata.yaml) or names its release.
func FindModule(module string) (dir, version string, err error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", module).Output()
	if err != nil {
		return "", "", fmt.Errorf("find the %s module: go list -m: %w", module, err)
	}
	dir, version, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || dir == "" || version == "" {
		return "", "", fmt.Errorf("find the %s module: go list -m printed %q", module, out)
	}
	return dir, version, nil
}
