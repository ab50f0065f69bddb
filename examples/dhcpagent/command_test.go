package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

const testPool = `{
  "metadata": {"name": "lab", "namespace": "default", "resourceVersion": "7"},
  "spec": {"cidr": "10.20.0.0/24", "serverIP": "10.20.0.2", "router": "10.20.0.1", "leaseTime": "1h"},
  "status": {"allocated": {"10.20.0.10": "52:54:00:aa:bb:01", "10.20.0.11": "52:54:00:aa:bb:02"}}
}`

// TestRunServes runs the command on loopback (an unprivileged port; no
// interface binding): it loads the pool file, answers its probes,
// reports the receive buffer
// the kernel granted, answers a DISCOVER, serves the metrics, logs a
// summary and no per-packet line at the default verbosity, and stops
// cleanly when its context ends.
func TestRunServes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pool.json")
	if err := os.WriteFile(path, []byte(testPool), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr logtest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-pool", path, "-listen", "127.0.0.1:0", "-metrics-bind-address", "127.0.0.1:0",
			"-health-probe-bind-address", "127.0.0.1:0", "-summary", "50ms", "-rcvbuf", "1048576"}, &stderr)
	}()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run = %v after its context ended, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("run did not return within 10s of its context ending")
		}
	}()
	find := func(re *regexp.Regexp) []string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			if m := re.FindStringSubmatch(stderr.String()); m != nil {
				return m
			}
			if time.Now().After(deadline) {
				t.Fatalf("no line matching %s within 10s; log:\n%s", re, stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	serving := find(regexp.MustCompile(`"serving" addr="([^"]+)"`))[1]
	metrics := find(regexp.MustCompile(`"metrics" addr="([^"]+)"`))[1]
	probes := find(regexp.MustCompile(`"probes" addr="([^"]+)"`))[1]
	find(regexp.MustCompile(`"socket receive buffer" asked=1048576 granted=[1-9]\d*`))
	// Summarize counts from the totals it read when it started: on a busy
	// machine its goroutine may start after the DISCOVER below was
	// answered, and then no interval holds it. Its first line says it runs.
	find(regexp.MustCompile(`"summary" interval="50ms"`))
	for _, path := range []string{"/healthz", "/readyz"} {
		// "serving" is logged just before the loop's first read: poll.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			resp, err := http.Get("http://" + probes + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && string(b) == "ok\n" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s = %d %q, want 200 \"ok\\n\" within 5s of serving", path, resp.StatusCode, b)
			}
		}
	}

	if offer := discover(t, serving, "52:54:00:aa:bb:01"); offer != "10.20.0.10" {
		t.Errorf("OFFER of %s, want 10.20.0.10", offer)
	}

	// The agent counts a reply once its send returned, which may be after
	// the client read it: poll the counters, and add up the summaries,
	// which are per interval.
	var body string
	wantMetrics := []string{"dhcpagent_leases 2\n", `dhcpagent_replies_total{type="OFFER"} 1` + "\n",
		`dhcpagent_table_info{pool="default/lab",resource_version="7"} 1` + "\n"}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get("http://" + metrics + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		if !slices.ContainsFunc(wantMetrics, func(w string) bool { return !strings.Contains(body, w) }) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wantMetrics {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	summary := regexp.MustCompile(`"summary" interval="50ms" received=(\d+) offers=(\d+) `)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var received, offers int
		for _, m := range summary.FindAllStringSubmatch(stderr.String(), -1) {
			r, _ := strconv.Atoi(m[1])
			o, _ := strconv.Atoi(m[2])
			received, offers = received+r, offers+o
		}
		if received == 1 && offers == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("summaries add up to received=%d offers=%d within 10s, want 1 and 1; log:\n%s", received, offers, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), `"OFFER"`) {
		t.Errorf("a per-packet line at the default verbosity:\n%s", stderr.String())
	}
}

// TestRunCPUProfile: with -cpuprofile the command writes a CPU profile of
// its run (a gzip-compressed pprof protobuf) when its context ends.
func TestRunCPUProfile(t *testing.T) {
	dir := t.TempDir()
	path, prof := filepath.Join(dir, "pool.json"), filepath.Join(dir, "cpu.pprof")
	if err := os.WriteFile(path, []byte(testPool), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// "" turns the metrics server off, as "0" does (the former spelling).
	if err := run(ctx, []string{"-pool", path, "-listen", "127.0.0.1:0", "-summary", "0", "-cpuprofile", prof,
		"-metrics-bind-address", "", "-health-probe-bind-address", "0"}, io.Discard); err != nil {
		t.Fatalf("run = %v, want nil when its context ends", err)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("profile of %d bytes does not start with the gzip magic", len(b))
	}
}
