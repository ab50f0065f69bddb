package command

import (
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// RESTConfig loads the kubeconfig of f: the file -kubeconfig names, or when
// it is empty $KUBECONFIG, the in-cluster config, ~/.kube/config, in that
// order (controller-runtime's rule, which kubectl users expect, written
// with client-go alone so that the agent links no controller-runtime). It
// applies
// -kube-api-qps and -kube-api-burst: a kubeconfig file alone would get
// client-go's default of 5 requests a second, which holds a controller to
// a claim or two a second whatever the API server can take. Without
// AddClientLimits (QPS 0, as the agent's Flags) the loaded limits stay.
func (f *Flags) RESTConfig() (*rest.Config, error) {
	var (
		cfg *rest.Config
		err error
	)
	cfg, err = loadKubeconfig(f.Kubeconfig)
	if err != nil {
		return nil, err
	}
	if f.QPS == 0 {
		return cfg, nil
	}
	cfg.QPS, cfg.Burst = float32(f.QPS), f.Burst
	if f.QPS > 0 && f.Burst <= 0 {
		cfg.Burst = int(2 * f.QPS)
	}
	return cfg, nil
}

// loadKubeconfig is the rule of RESTConfig without the limits.
func loadKubeconfig(path string) (*rest.Config, error) {
	if path != "" {
		return clientcmd.BuildConfigFromFlags("", path)
	}
	if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		rules := &clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(env)}
		return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	}
	if cfg, err := rest.InClusterConfig(); err == nil {
		return cfg, nil
	}
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: []string{clientcmd.RecommendedHomeFile}}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
}
