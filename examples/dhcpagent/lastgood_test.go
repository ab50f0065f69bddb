package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/lastgood"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// TestRunFromLastGood: an agent started with -ippool while the API
// server does not answer serves the pool's last-good copy from -state-dir
// after -state-wait (ready, its /readyz and metrics saying how old the
// copy is, an OFFER from the copy's table); a torn or tampered copy, or
// none, is refused and logged, and the agent stays not ready, waiting for
// the API server.
func TestRunFromLastGood(t *testing.T) {
	tests := []struct {
		name   string
		damage func(path string) error // nil: the copy as saved
		noCopy bool
		serves bool
		log    string
	}{
		{name: "the copy", serves: true, log: `"the API server has not answered: serving the last-good copy of the pool"`},
		{name: "no copy", noCopy: true, log: "pool.last-good: no last-good copy"},
		{name: "a torn copy", damage: func(path string) error { return os.Truncate(path, 100) }, log: "torn or tampered"},
		{name: "a tampered copy", damage: func(path string) error {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(path, []byte(strings.Replace(string(b), "10.20.0.10", "10.20.0.99", 1)), 0o600)
		}, log: "torn or tampered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if !tt.noCopy {
				written := time.Now().Add(-90 * time.Second)
				if err := lastgood.New(dir, "default/lab").Save([]byte(testPool), "7", written); err != nil {
					t.Fatal(err)
				}
				if tt.damage != nil {
					if err := tt.damage(filepath.Join(dir, "pool.last-good")); err != nil {
						t.Fatal(err)
					}
				}
			}
			var stderr logtest.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, []string{"-ippool", "default/lab", "-kubeconfig", silentAPIServer(t), "-state-dir", dir, "-state-wait", "300ms",
					"-listen", "127.0.0.1:0", "-health-probe-bind-address", "127.0.0.1:0", "-metrics-bind-address", "127.0.0.1:0", "-summary", "0"}, &stderr)
			}()
			defer func() {
				cancel()
				select {
				case <-done: // without a table the watch ends with the context's error
				case <-time.After(10 * time.Second):
					t.Error("run did not return within 10s of its context ending")
				}
			}()
			probes := waitLine(t, &stderr, `"probes" addr="`)
			waitLine(t, &stderr, tt.log)
			if !tt.serves {
				time.Sleep(500 * time.Millisecond)
				if code, body := get(t, "http://"+probes+"/readyz"); code != http.StatusServiceUnavailable {
					t.Errorf("/readyz = %d %q without a usable copy, want 503", code, body)
				}
				return
			}
			serving := waitLine(t, &stderr, `"serving" addr="`)
			metrics := waitLine(t, &stderr, `"metrics" addr="`)
			code, body := 0, ""
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if code, body = get(t, "http://"+probes+"/readyz"); code == http.StatusOK {
					break
				}
			}
			if code != http.StatusOK || !strings.HasPrefix(body, "ok: serving the last-good copy of the pool (resourceVersion 7), written 1m3") {
				t.Errorf("/readyz = %d %q, want 200 naming the copy's age (1m30s)", code, body)
			}
			if offer := discover(t, serving, "52:54:00:aa:bb:01"); offer != "10.20.0.10" {
				t.Errorf("OFFER of %q, want the copy's 10.20.0.10", offer)
			}
			if _, m := get(t, "http://"+metrics+"/metrics"); !strings.Contains(m, "dhcpagent_last_good_served_age_seconds 9") {
				t.Errorf("/metrics lacks the copy's age (90 s):\n%s", m)
			}
		})
	}
}

// silentAPIServer is a kubeconfig naming an API server that refuses every
// connection.
func silentAPIServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	path := filepath.Join(t.TempDir(), "kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://%s", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, addr)
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitLine waits up to 10 s for a log line containing s and returns what
// follows s up to the next quote.
func waitLine(t *testing.T, log *logtest.Buffer, s string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, rest, ok := strings.Cut(log.String(), s); ok {
			v, _, _ := strings.Cut(rest, `"`)
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line with %s within 10s; log:\n%s", s, log)
		}
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// discover sends a DISCOVER of mac to the agent at addr on loopback and
// returns the address its OFFER gives; a reply that is not an OFFER fails
// the test.
func discover(t *testing.T, addr, mac string) string {
	t.Helper()
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hw, _ := net.ParseMAC(mac)
	d, err := dhcpv4.NewDiscovery(hw)
	if err != nil {
		t.Fatal(err)
	}
	server, err := net.ResolveUDPAddr("udp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.WriteToUDP(d.ToBytes(), server); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 1500)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("no reply to the DISCOVER: %v", err)
	}
	offer, err := dhcpv4.FromBytes(buf[:n])
	if err != nil {
		t.Fatal(err)
	}
	if offer.MessageType() != dhcpv4.MessageTypeOffer {
		t.Fatalf("reply %s to the DISCOVER, want OFFER", offer.MessageType())
	}
	return offer.YourIPAddr.String()
}
