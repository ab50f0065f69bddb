package kubetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMetricSamples: names, labels and values of Prometheus text, with
// comments and what does not parse skipped.
func TestMetricSamples(t *testing.T) {
	type sample struct {
		Name   string
		Labels map[string]string
		Value  float64
	}
	tests := []struct {
		name string
		text string
		want []sample
	}{
		{"plain", "process_cpu_seconds_total 12.5\n", []sample{{"process_cpu_seconds_total", map[string]string{}, 12.5}}},
		{"labels", `apiserver_request_total{code="201",resource="ipaddresses",verb="POST"} 3` + "\n",
			[]sample{{"apiserver_request_total", map[string]string{"code": "201", "resource": "ipaddresses", "verb": "POST"}, 3}}},
		{"exponent", "go_gc_heap_live_bytes 2.1e+09\n", []sample{{"go_gc_heap_live_bytes", map[string]string{}, 2.1e9}}},
		{"comments skipped", "# HELP x y\n# TYPE x counter\nx 1\n", []sample{{"x", map[string]string{}, 1}}},
		{"no value skipped", "x\ny{a=\"b\"}\nz 2\n", []sample{{"z", map[string]string{}, 2}}},
		{"bad value skipped", "x one\ny 2\n", []sample{{"y", map[string]string{}, 2}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []sample
			MetricSamples(tt.text, func(name string, labels map[string]string, v float64) {
				got = append(got, sample{name, labels, v})
			})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("MetricSamples (-want +got):\n%s", diff)
			}
		})
	}
}
