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
// (apiserver_request_total), read from its /metrics.
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
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		labels, value, ok := strings.Cut(strings.TrimPrefix(line, "apiserver_request_total{"), "} ")
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
		calls[key] += v
	}
	return calls
}

// perClaim returns the calls made between before and c, per claim, as
// sorted text for the resources named.
func (c apiCalls) perClaim(before apiCalls, claims int, resources ...string) string {
	var parts []string
	for k, v := range c {
		d := v - before[k]
		if d <= 0 {
			continue
		}
		for _, r := range resources {
			if strings.HasSuffix(strings.Split(k, "/")[0], " "+r) {
				parts = append(parts, fmt.Sprintf("%s %.2f", k, d/float64(claims)))
			}
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
