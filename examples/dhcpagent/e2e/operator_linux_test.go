package e2e

import (
	"context"
	"fmt"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// operatorProc is the operator's binary, run as the user bound to its
// generated ClusterRole and nothing else.
type operatorProc struct {
	proc   *process
	health string
}

// startOperator starts the operator and waits for its /readyz.
func (s *system) startOperator() {
	s.t.Helper()
	o := &operatorProc{health: kubetest.FreeAddr(s.t)}
	o.proc = startProcess(s.t, "operator", "", s.binOp, "-kubeconfig", s.opConfig, "-health-probe-bind-address", o.health)
	kubetest.WaitHTTP(s.t, "http://"+o.health+"/readyz", 200, 60*time.Second, o.proc.log)
	s.operator = o
}

// burstConfig is the n-th config of a burst: a VM with one NIC on the
// pool and no client behind it.
func burstConfig(n int) *v1alpha1.VMNetworkConfig {
	return &v1alpha1.VMNetworkConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: poolNS, Name: fmt.Sprintf("burst-%03d", n)},
		Spec: v1alpha1.VMNetworkConfigSpec{NICs: []v1alpha1.NIC{{
			MAC: fmt.Sprintf("52:54:00:bb:%02x:%02x", n>>8, n&0xff), Pool: poolName,
		}}},
	}
}

// createBurst creates configs from..to-1 as fast as the API server
// takes them, calling at(n) after each (at may kill the operator).
func (s *system) createBurst(from, to int, at func(n int)) {
	s.t.Helper()
	for n := from; n < to; n++ {
		if err := s.c.Create(context.Background(), burstConfig(n)); err != nil {
			s.t.Fatalf("create %s: %v", burstConfig(n).Name, err)
		}
		if at != nil {
			at(n)
		}
	}
	s.created = max(s.created, to)
}

// waitBurstServed waits until every burst config created so far has its
// addresses and is Ready.
func (s *system) waitBurstServed(timeout time.Duration) {
	s.t.Helper()
	kubetest.Eventually(s.t, timeout, "every burst config served", func() (bool, string) {
		list := &v1alpha1.VMNetworkConfigList{}
		if err := s.c.List(context.Background(), list, client.InNamespace(poolNS)); err != nil {
			return false, err.Error()
		}
		waiting := 0
		for _, cfg := range list.Items {
			if len(cfg.Status.NICs) != 1 || cfg.Status.NICs[0].Address == "" {
				waiting++
			}
		}
		return waiting == 0, fmt.Sprintf("%d of %d configs without an address", waiting, len(list.Items))
	})
}
