package kubetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// AssetsEnv names the environment variable that points at the folder holding
// the kube-apiserver and etcd binaries.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// howToGetAssets is appended to every error about missing binaries.
const howToGetAssets = "run `make test` or `export KUBEBUILDER_ASSETS=$(./hack/envtest-assets.sh)` from the repository root"

// ErrNoAssets reports that KUBEBUILDER_ASSETS is unset or does not hold the
// kube-apiserver and etcd binaries.
var ErrNoAssets = errors.New("kubetest: no kube-apiserver/etcd binaries")

// AssetsDir returns the folder named by KUBEBUILDER_ASSETS after checking that
// it holds executable kube-apiserver and etcd binaries. Its error wraps
// ErrNoAssets and says how to build them.
func AssetsDir() (string, error) {
	dir := os.Getenv(AssetsEnv)
	if dir == "" {
		return "", fmt.Errorf("%w: %s is unset; %s", ErrNoAssets, AssetsEnv, howToGetAssets)
	}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("%w: %s=%q: %v; %s", ErrNoAssets, AssetsEnv, dir, err, howToGetAssets)
		}
		if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("%w: %s=%q: %q is not an executable file; %s", ErrNoAssets, AssetsEnv, dir, p, howToGetAssets)
		}
	}
	return dir, nil
}
