package poolsource

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/internal/pooltest"
	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// TestPoll walks the pool file through its life with explicit polls: an
// unchanged file and a rewrite with the same content are not loaded again,
// a new content is, a broken or missing file leaves the table alone and
// is logged once.
func TestPoll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pool.json")
	logs := &logtest.Buffer{}
	srv := &server{log: logtest.Logger(logs, 0)}
	f := NewFile(path, srv.apply, srv.log)

	mtime := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(p *Pool, raw string) {
		t.Helper()
		if p != nil {
			pooltest.WriteFile(t, path, p)
		} else if err := os.WriteFile(path, []byte(raw), 0o644); err != nil {
			t.Fatal(err)
		}
		mtime = mtime.Add(time.Second) // every write is visibly new to stat
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	addrOf := func(mac string) string {
		l, ok := srv.lookup(mac)
		if !ok {
			return "none"
		}
		return l.Addr.String()
	}
	count := func(s string) int { return strings.Count(logs.String(), s) }

	if err := f.Load(); err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
	write(labPool(labAllocated()), "")
	if err := f.Load(); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name     string
		change   func()
		wantAddr string // macA's address after the poll
		swaps    int    // "table swapped" lines so far
		errors   int    // error lines so far
	}{
		{"unchanged", func() {}, "10.77.0.10", 1, 0},
		{"same content rewritten", func() { write(labPool(labAllocated()), "") }, "10.77.0.10", 1, 0},
		{"moved", func() { write(labPool(movedAllocated()), "") }, "10.77.0.20", 2, 0},
		{"half-written", func() { write(nil, `{"spec": {"cidr": "10.77`) }, "10.77.0.20", 2, 1},
		{"still half-written", func() {}, "10.77.0.20", 2, 1},
		{"invalid spec", func() { write(nil, `{"spec": {"cidr": "10.77.0.0/24"}}`) }, "10.77.0.20", 2, 2},
		{"removed", func() { os.Remove(path) }, "10.77.0.20", 2, 3},
		{"still removed", func() {}, "10.77.0.20", 2, 3},
		{"back", func() { write(labPool(labAllocated()), "") }, "10.77.0.10", 3, 3},
	}
	for _, s := range steps {
		s.change()
		f.poll()
		if got := addrOf(macA); got != s.wantAddr {
			t.Errorf("%s: macA at %s, want %s", s.name, got, s.wantAddr)
		}
		if got := count("\"table swapped\""); got != s.swaps {
			t.Errorf("%s: %d swaps logged, want %d", s.name, got, s.swaps)
		}
		if got := len(errorLine.FindAllString(logs.String(), -1)); got != s.errors {
			t.Errorf("%s: %d errors logged, want %d", s.name, got, s.errors)
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", logs)
	}
}

// TestWatch runs the polling loop: a change of the file is served within a
// few intervals, and cancelling the context stops it.
func TestWatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pool.json")
	srv, f := loadedLabFile(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Watch(ctx, 5*time.Millisecond) }()

	pooltest.WriteFile(t, path, labPool(movedAllocated()))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if l, ok := srv.lookup(macA); ok && l.Addr == addrA2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the moved lease was not served within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Watch = %v, want context.Canceled", err)
	}
}

// TestPollRacy rewrites the file in place with content of the same size
// and the same modification time, as two writes within one tick of the
// file system's clock do: stat cannot tell, so a file modified this
// recently is hashed again.
func TestPollRacy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pool.json")
	srv, f := loadedLabFile(t, path)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// 10.77.0.10 -> 10.77.0.20: the same size.
	after := []byte(strings.Replace(string(before), `"10.77.0.10": `, `"10.77.0.20": `, 1))
	if len(after) != len(before) || string(after) == string(before) {
		t.Fatal("test file did not change in place at the same size")
	}
	if err := os.WriteFile(path, after, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	f.poll()
	if l, ok := srv.lookup(macA); !ok || l.Addr != addrA2 {
		t.Fatalf("macA at %v (found %v) after a same-size, same-time rewrite; want %s", l.Addr, ok, addrA2)
	}
}

// loadedLabFile writes the lab pool with labAllocated to path and returns
// a File of it, loaded, serving a server that logs nothing.
func loadedLabFile(t *testing.T, path string) (*server, *File) {
	t.Helper()
	pooltest.WriteFile(t, path, labPool(labAllocated()))
	srv := &server{log: logr.Discard()}
	f := NewFile(path, srv.apply, srv.log)
	if err := f.Load(); err != nil {
		t.Fatal(err)
	}
	return srv, f
}

// errorLine matches the start of an error line of klog's text format.
var errorLine = regexp.MustCompile(`(?m)^E\d{4} `)

// TestWatchNotify checks that Watch loads a change as soon as it is
// written, with the fallback check an hour away: by inotify on the
// directory, for a new file renamed over the pool file (as editors and
// pooltest.WriteFile do) and for a write in place.
func TestWatchNotify(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pool.json")
	srv, f := loadedLabFile(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Watch(ctx, time.Hour) }()
	defer func() {
		cancel()
		<-done
	}()
	waitFor := func(what string, want netip.Addr) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			if l, ok := srv.lookup(macA); ok && l.Addr == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: macA not at %s within 5s, with no poll due for an hour", what, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// Other files in the directory do not matter.
	if err := os.WriteFile(filepath.Join(dir, "other"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	pooltest.WriteFile(t, path, labPool(movedAllocated()))
	waitFor("renamed over", addrA2)

	data, err := json.Marshal(labPool(labAllocated()))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor("written in place", addrA)
}
