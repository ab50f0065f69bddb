package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/kubevirt"
	"github.com/vmnetkit/vmnetkit/examples/operator/api/v1alpha1"
)

// BenchmarkVMBurst creates burstVMs VirtualMachines of two NICs each (MACs
// in the spec) on one pool at once, restarts the operator once half of
// them have their addresses, and waits until every NIC has one. It fails
// unless all burstVMs*2 addresses are given, none twice, pool-a's
// status.allocated holds exactly them, and no VM served before the restart
// got another address after it. It reports the seconds from the first
// create to the last address (restart included) and the API server's
// requests per VM (apiserver_request_total of the operator's resources:
// vmnetworkconfigs, ippools, events; the test's own VM creates left out).
// docs/performance.md quotes it. Run it alone, once:
//
//	go test -run '^$' -bench VMBurst -benchtime 1x ./operator/controller/
func BenchmarkVMBurst(b *testing.B) {
	const burstVMs = 1000
	for range b.N {
		k := newVMKit(b, 0)
		// Room for every NIC: 10.20.0.10 to 10.20.7.254 (2,037 addresses).
		k.editPool("pool-a", func(p *v1alpha1.IPPool) { p.Spec.CIDR = "10.20.0.0/21" })
		before := kubetest.ReadAPICalls(b, k.cfg)
		began := time.Now()
		err := kubetest.InParallel(burstVMs, 16, func(i int) error {
			vm := &kubevirt.VirtualMachine{ObjectMeta: metav1.ObjectMeta{Namespace: k.ns, Name: fmt.Sprintf("vm-%04d", i)},
				Spec: kubevirt.VirtualMachineSpec{Template: &kubevirt.Template{}}}
			addIface(vm, iface{"nic1", "net-a", fmt.Sprintf("52:54:00:01:%02x:%02x", i>>8, i&0xff)})
			addIface(vm, iface{"nic2", "net-a", fmt.Sprintf("52:54:00:02:%02x:%02x", i>>8, i&0xff)})
			return k.c.Create(context.Background(), vm)
		})
		if err != nil {
			b.Fatal(err)
		}
		created := time.Since(began)
		served := k.waitServed(burstVMs / 2)
		half := time.Since(began)
		k.restart(func() {})
		restarted := time.Since(began)
		k.waitServed(burstVMs)
		elapsed := time.Since(began)
		calls := kubetest.ReadAPICalls(b, k.cfg).Minus(before).Only("vmnetworkconfigs", "ippools", "events")

		want := map[string][]nic{}
		for i := range burstVMs {
			want[fmt.Sprintf("vm-%04d", i)] = []nic{
				{"nic1", fmt.Sprintf("52:54:00:01:%02x:%02x", i>>8, i&0xff), ""},
				{"nic2", fmt.Sprintf("52:54:00:02:%02x:%02x", i>>8, i&0xff), ""},
			}
		}
		got := k.expect("every NIC of every VM served once", want) // duplicates: pool-a's status would differ
		changed := 0
		for vm, addrs := range served {
			for name, a := range addrs {
				if got[vm][name] != a {
					changed++
					b.Errorf("%s %s: %s before the restart, %s after", vm, name, a, got[vm][name])
				}
			}
		}
		if n := len(k.allocated("pool-a")); n != 2*burstVMs {
			b.Errorf("pool-a holds %d addresses, want %d", n, 2*burstVMs)
		}
		total := 0.0
		for key, v := range calls {
			if !strings.HasPrefix(key, "seconds ") && !strings.HasPrefix(key, "WATCH ") {
				total += v
			}
		}
		b.ReportMetric(elapsed.Seconds(), "s")
		b.ReportMetric(total/burstVMs, "requests/VM")
		b.Logf("%d VMs x 2 NICs in %v (creates done after %v; %d VMs served after %v, operator restarted after %v); %d addresses changed; requests per VM: %s",
			burstVMs, elapsed.Round(10*time.Millisecond), created.Round(10*time.Millisecond), len(served), half.Round(10*time.Millisecond),
			restarted.Round(10*time.Millisecond), changed, calls.Table(burstVMs))
	}
}

// waitServed waits until at least n generated configs are Ready with every
// NIC's address, and returns their addresses by VM and interface name.
func (k *vmKit) waitServed(n int) map[string]map[string]string {
	k.t.Helper()
	var served map[string]map[string]string
	kubetest.Eventually(k.t, 5*time.Minute, fmt.Sprintf("%d VMs served", n), func() (bool, string) {
		var list v1alpha1.VMNetworkConfigList
		if err := k.c.List(context.Background(), &list, client.InNamespace(k.ns)); err != nil {
			return false, err.Error()
		}
		served = map[string]map[string]string{}
		for _, cfg := range list.Items {
			if !claimReady(&cfg) || len(cfg.Status.NICs) != len(cfg.Spec.NICs) {
				continue
			}
			served[cfg.Name] = map[string]string{}
			for i, s := range cfg.Status.NICs {
				served[cfg.Name][cfg.Spec.NICs[i].Name] = s.Address
			}
		}
		return len(served) >= n, fmt.Sprintf("%d served", len(served))
	})
	return served
}

// editPool changes pool name's spec.
func (k *vmKit) editPool(name string, change func(p *v1alpha1.IPPool)) {
	k.t.Helper()
	p := &v1alpha1.IPPool{}
	if err := k.c.Get(context.Background(), client.ObjectKey{Namespace: k.ns, Name: name}, p); err != nil {
		k.t.Fatal(err)
	}
	change(p)
	if err := k.c.Update(context.Background(), p); err != nil {
		k.t.Fatal(err)
	}
}
