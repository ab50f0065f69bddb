package controller_test

import (
	"bufio"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// apiServerMetrics returns the API server's /metrics text.
func apiServerMetrics(t testing.TB, cfg *rest.Config) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// metricSamples calls f with each sample of Prometheus text: the metric's
// name, its labels (empty without), its value. Comments and lines that do
// not parse are skipped. Label values are taken up to the next comma, which
// the API server's labels read here never hold.
func metricSamples(text string, f func(name string, labels map[string]string, value float64)) {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		labels := map[string]string{}
		name, value, ok := strings.Cut(line, " ")
		if n, rest, braced := strings.Cut(line, "{"); braced {
			var inner string
			inner, value, ok = strings.Cut(rest, "} ")
			name = n
			for _, kv := range strings.Split(inner, ",") {
				k, v, _ := strings.Cut(kv, "=")
				labels[k] = strings.Trim(v, `"`)
			}
		}
		v, err := strconv.ParseFloat(value, 64)
		if !ok || err != nil {
			continue
		}
		f(name, labels, v)
	}
}

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
			metricSamples(tt.text, func(name string, labels map[string]string, v float64) {
				got = append(got, sample{name, labels, v})
			})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("metricSamples (-want +got):\n%s", diff)
			}
		})
	}
}
