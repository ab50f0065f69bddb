package controller_test

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

// apiCalls is the API server's request count by "VERB resource[/subresource]"
// (apiserver_request_total), and the seconds it spent on them under
// "seconds VERB resource[/subresource]" (apiserver_request_duration_seconds_sum),
// read from its /metrics.
type apiCalls map[string]float64

// readAPICalls reads the API server's request counts.
func readAPICalls(t testing.TB, cfg *rest.Config) apiCalls {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	calls := apiCalls{}
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		metric, rest, ok := strings.Cut(line, "{")
		if !ok || (metric != "apiserver_request_total" && metric != "apiserver_request_duration_seconds_sum") {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		l := map[string]string{}
		for _, kv := range strings.Split(labels, ",") {
			k, val, _ := strings.Cut(kv, "=")
			l[k] = strings.Trim(val, `"`)
		}
		key := l["verb"] + " " + l["resource"]
		if l["subresource"] != "" {
			key += "/" + l["subresource"]
		}
		if metric == "apiserver_request_duration_seconds_sum" {
			key = "seconds " + key
		}
		calls[key] += v
	}
	return calls
}

// perClaim returns the calls made between before and c, per claim, with
// the mean time the API server took for each, as sorted text for the
// resources named.
func (c apiCalls) perClaim(before apiCalls, claims int, resources ...string) string {
	var parts []string
	for k, v := range c {
		d := v - before[k]
		if d <= 0 || strings.HasPrefix(k, "seconds ") {
			continue
		}
		for _, r := range resources {
			if strings.HasSuffix(strings.Split(k, "/")[0], " "+r) {
				mean := (c["seconds "+k] - before["seconds "+k]) / d
				parts = append(parts, fmt.Sprintf("%s %.2f (%.0fms)", k, d/float64(claims), 1000*mean))
			}
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
