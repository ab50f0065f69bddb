package kubetest

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// RunCommand runs a command's run function with args in the background,
// its output in the returned buffer, until the test ends: t.Cleanup cancels
// its context and fails t unless it returns nil within 60s.
func RunCommand(t testing.TB, run func(ctx context.Context, args []string, stderr io.Writer) error, args ...string) *logtest.Buffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	log := &logtest.Buffer{}
	go func() { done <- run(ctx, args, log) }()
	t.Cleanup(func() {
		cancel()
		select { // a manager whose caches never synced may take a while to stop
		case err := <-done:
			if err != nil {
				t.Errorf("run(%q) after cancel = %v; log:\n%s", args, err, log.String())
			}
		case <-time.After(60 * time.Second):
			t.Errorf("run(%q) did not return 60s after cancel; log:\n%s", args, log.String())
		}
	})
	return log
}

// FreeAddr is a loopback address whose TCP port is free right now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// WaitHTTP polls url with GET until it answers status want, for at most
// timeout; then it fails t with the last answer and log.
func WaitHTTP(t testing.TB, url string, want int, timeout time.Duration, log *logtest.Buffer) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		last := ""
		resp, err := http.Get(url)
		if err != nil {
			last = err.Error()
		} else {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == want {
				return
			}
			last = resp.Status + " " + string(body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: not %d within %v (last: %s); log:\n%s", url, want, timeout, last, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
