package bench

import (
	"fmt"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/vmnetkit/vmnetkit/examples/internal/kubetest"
)

// apiServerCPU is what the API server process has spent, from its own
// /metrics: CPU seconds (process_cpu_seconds_total); its Go garbage
// collector's cycles (go_gc_cycles_total_gc_cycles_total) and their CPU
// seconds (go_cpu_classes_gc_total_cpu_seconds_total), both counted when a
// cycle ends, so a difference holds whole cycles that ended in between, or
// none for one still running; the live heap after the last cycle; and the
// watch cache's consistency checks (apiserver_storage_consistency_checks_total,
// all resources: each lists and decodes a resource's every object from
// etcd, every 5 to 7.5 minutes).
type apiServerCPU struct {
	cpu, gc, cycles, liveBytes, checks float64
}

// readAPIServerCPU reads the API server's apiServerCPU; it fails t when a
// metric is missing.
func readAPIServerCPU(t testing.TB, cfg *rest.Config) apiServerCPU {
	t.Helper()
	var a apiServerCPU
	want := map[string]*float64{
		"process_cpu_seconds_total":                 &a.cpu,
		"go_cpu_classes_gc_total_cpu_seconds_total": &a.gc,
		"go_gc_cycles_total_gc_cycles_total":        &a.cycles,
		"go_gc_heap_live_bytes":                     &a.liveBytes,
	}
	kubetest.MetricSamples(kubetest.APIServerMetrics(t, cfg), func(name string, _ map[string]string, v float64) {
		if name == "apiserver_storage_consistency_checks_total" {
			a.checks += v // one series a resource and status
		} else if p := want[name]; p != nil {
			*p = v
			delete(want, name)
		}
	})
	for name := range want {
		t.Fatalf("API server metric %s: missing", name)
	}
	return a
}

// since is what the API server spent from before to a; the live heap is a's.
func (a apiServerCPU) since(before apiServerCPU) apiServerCPU {
	return apiServerCPU{cpu: a.cpu - before.cpu, gc: a.gc - before.gc, cycles: a.cycles - before.cycles,
		liveBytes: a.liveBytes, checks: a.checks - before.checks}
}

func (a apiServerCPU) String() string {
	return fmt.Sprintf("API server CPU %.2fs; garbage collection cycles ended %.0f (%.2fs of CPU, %.0f MB live after); cache consistency checks %.0f",
		a.cpu, a.cycles, a.gc, a.liveBytes/1e6, a.checks)
}
