package manager

import (
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
)

// RESTConfig loads the kubeconfig of f: the file -kubeconfig names, or when
// it is empty $KUBECONFIG, the in-cluster config, ~/.kube/config, in that
// order (controller-runtime's rule, which kubectl users expect). It applies
// -kube-api-qps and -kube-api-burst: a kubeconfig file alone would get
// client-go's default of 5 requests a second, which holds a controller to
// a claim or two a second whatever the API server can take. Without
// AddClientLimits (QPS 0, as the agent's Flags) the loaded limits stay.
func (f *Flags) RESTConfig() (*rest.Config, error) {
	var (
		cfg *rest.Config
		err error
	)
	if f.Kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", f.Kubeconfig)
	} else {
		cfg, err = ctrl.GetConfig()
	}
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
