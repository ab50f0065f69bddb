package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/agent"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/poolsource"
)

// TestServeLoopAlive: the liveness check through the loop's states: alive
// while starting, waiting and handling for less than stuckAfter; not once
// stuck or stopped.
func TestServeLoopAlive(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		state   int64
		wantErr string
	}{
		{name: "starting", state: loopStarting},
		{name: "waiting for a request", state: loopWaiting},
		{name: "handling for a second", state: now.Add(-time.Second).UnixNano()},
		{name: "stuck", state: now.Add(-stuckAfter - time.Second).UnixNano(), wantErr: "serve loop stuck: handling one request for 11s"},
		{name: "stopped", state: loopStopped, wantErr: "serve loop stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l serveLoop
			l.state.Store(tt.state)
			err := l.alive(now)
			if got := errText(err); got != tt.wantErr {
				t.Errorf("alive() = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

// TestReady: not ready before a table is loaded or while the loop is not
// serving; ready with both.
func TestReady(t *testing.T) {
	empty := agent.New(nil)
	loaded := agent.New(nil)
	pool, err := poolsource.DecodePool([]byte(testPool))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loaded.Apply(pool); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		a       *agent.Agent
		state   int64
		wantErr string
	}{
		{name: "no table", a: empty, state: loopWaiting, wantErr: "no lease table loaded from the pool yet"},
		{name: "table, loop not started", a: loaded, state: loopStarting, wantErr: "serve loop not started yet"},
		{name: "table, loop waiting", a: loaded, state: loopWaiting},
		{name: "table, loop handling", a: loaded, state: time.Now().UnixNano()},
		{name: "table, loop stopped", a: loaded, state: loopStopped, wantErr: "serve loop stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l serveLoop
			l.state.Store(tt.state)
			if got := errText(ready(tt.a, &l)); got != tt.wantErr {
				t.Errorf("ready() = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

// TestLoopConn: a read through the wrapped socket marks the loop waiting
// while it blocks and handling once it returned.
func TestLoopConn(t *testing.T) {
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	var l serveLoop
	conn := l.wrap(pc)
	defer conn.Close()
	read := make(chan error, 1)
	go func() {
		_, _, err := conn.ReadFromUDPAddrPort(make([]byte, 16))
		read <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); l.state.Load() != loopWaiting; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the loop is not waiting while a read blocks")
		}
	}
	before := time.Now()
	if _, err := pc.WriteToUDPAddrPort([]byte("x"), netip.MustParseAddrPort(pc.LocalAddr().String())); err != nil {
		t.Fatal(err)
	}
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	if s := l.state.Load(); s < before.UnixNano() {
		t.Errorf("state %d after a read returned, want the time it returned (>= %d)", s, before.UnixNano())
	}
}

// TestProbeHandler: 200 "ok" or 503 with the check's error, per path;
// a ready note (the last-good copy served) follows "ok: " on /readyz only.
func TestProbeHandler(t *testing.T) {
	type resp struct {
		code int
		body string
	}
	for _, tc := range []struct {
		name  string
		ready error
		note  string
		want  map[string]resp
	}{
		{"not ready", errText2("no table"), "", map[string]resp{"/healthz": {200, "ok\n"}, "/readyz": {503, "no table\n"}}},
		{"ready", nil, "", map[string]resp{"/healthz": {200, "ok\n"}, "/readyz": {200, "ok\n"}}},
		{"ready from the last-good copy", nil, "serving the last-good copy", map[string]resp{"/healthz": {200, "ok\n"}, "/readyz": {200, "ok: serving the last-good copy\n"}}},
		{"a note while not ready", errText2("no table"), "serving the last-good copy", map[string]resp{"/healthz": {200, "ok\n"}, "/readyz": {503, "no table\n"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := probeHandler(func() error { return nil }, func() error { return tc.ready }, func() string { return tc.note })
			for path, want := range tc.want {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				if got := (resp{rec.Code, rec.Body.String()}); got != want {
					t.Errorf("GET %s = %d %q, want %d %q", path, got.code, got.body, want.code, want.body)
				}
			}
		})
	}
}

type errText2 string

func (e errText2) Error() string { return string(e) }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimSpace(err.Error())
}
