package kubetest

import (
	"bufio"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// APIServerMetrics returns the API server's /metrics text.
func APIServerMetrics(t testing.TB, cfg *rest.Config) string {
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

// MetricSamples calls f with each sample of Prometheus text: the metric's
// name, its labels (empty without), its value. Comments and lines that do
// not parse are skipped. Label values are taken up to the next comma, which
// the API server's labels read here never hold.
func MetricSamples(text string, f func(name string, labels map[string]string, value float64)) {
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

// APICalls is the API server's request count by "VERB resource[/subresource]"
// (apiserver_request_total), and the seconds it spent on them under
// "seconds VERB resource[/subresource]" (apiserver_request_duration_seconds_sum),
// read from its /metrics: how a test counts the requests a controller
// makes.
type APICalls map[string]float64

// ReadAPICalls reads the API server's request counts.
func ReadAPICalls(t testing.TB, cfg *rest.Config) APICalls {
	t.Helper()
	calls := APICalls{}
	MetricSamples(APIServerMetrics(t, cfg), func(metric string, l map[string]string, v float64) {
		if metric != "apiserver_request_total" && metric != "apiserver_request_duration_seconds_sum" {
			return
		}
		key := l["verb"] + " " + l["resource"]
		if l["subresource"] != "" {
			key += "/" + l["subresource"]
		}
		if metric == "apiserver_request_duration_seconds_sum" {
			key = "seconds " + key
		}
		calls[key] += v
	})
	return calls
}

// Minus returns the requests counted in c and not in before.
func (c APICalls) Minus(before APICalls) APICalls {
	out := APICalls{}
	for k, v := range c {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// Only returns the requests of c on the resources named (subresources
// included).
func (c APICalls) Only(resources ...string) APICalls {
	out := APICalls{}
	for k, v := range c {
		_, res, _ := strings.Cut(strings.TrimPrefix(k, "seconds "), " ")
		res, _, _ = strings.Cut(res, "/")
		for _, r := range resources {
			if res == r {
				out[k] = v
			}
		}
	}
	return out
}

// Table returns the requests of c, divided by n (claims, VMs), as sorted
// text "VERB resource n.nnn", one per verb and resource, seconds and
// watches left out.
func (c APICalls) Table(n int) string {
	var parts []string
	for k, v := range c {
		if !strings.HasPrefix(k, "seconds ") && !strings.HasPrefix(k, "WATCH ") && v > 0 {
			parts = append(parts, fmt.Sprintf("%s %.3f", k, v/float64(n)))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
