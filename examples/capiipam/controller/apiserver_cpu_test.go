package controller_test

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
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
	want := map[string]*float64{}
	var a apiServerCPU
	want["process_cpu_seconds_total"] = &a.cpu
	want["go_cpu_classes_gc_total_cpu_seconds_total"] = &a.gc
	want["go_gc_cycles_total_gc_cycles_total"] = &a.cycles
	want["go_gc_heap_live_bytes"] = &a.liveBytes
	sc := bufio.NewScanner(strings.NewReader(apiServerMetrics(t, cfg)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if strings.HasPrefix(name, "apiserver_storage_consistency_checks_total{") {
			name, value, ok = strings.Cut(sc.Text(), "} ")
			v, err := strconv.ParseFloat(value, 64)
			if !ok || err != nil {
				t.Fatalf("API server metric %s: %q", name, value)
			}
			a.checks += v
			continue
		}
		if p := want[name]; ok && p != nil {
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				t.Fatalf("API server metric %s: %v", name, err)
			}
			*p = v
			delete(want, name)
		}
	}
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
