package netnstest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// Event4 is one call of a Run4 client's hook script (Script4).
type Event4 struct {
	Name string // the client's own event name (bound, RENEW, EXPIRE, ...)
	Kind string // Client4.Kind of it: "bound", "renew", "nak" or ""
	Addr string // the lease's address, if any
	Env  map[string]string
	At   time.Time // when the script ran
}

func (e Event4) String() string {
	return fmt.Sprintf("%s %s %s", e.At.Format("15:04:05.000"), e.Name, e.Addr)
}

// Run4 is one real DHCPv4 client process (Client4.Run) on an interface
// of a namespace, left running through its renewals until Stop or the
// end of the test.
type Run4 struct {
	t      testing.TB
	c      Client4
	dir    string
	cmd    *exec.Cmd
	out    *logtest.Buffer
	done   chan error
	exited bool
}

// StartClient4 starts c on iface in network namespace ns with Script4 as
// its hook script. It fails the test when the client is missing and CI
// is set (RequireTool). dhcpcd gets lease and run folders of its own
// (bind-mounted in the mount namespace ip netns exec makes), so that
// no lease of another test or of the machine is read.
func StartClient4(t testing.TB, c Client4, ns, iface string) *Run4 {
	t.Helper()
	RequireTool(t, c.Name, c.Package)
	r := &Run4{t: t, c: c, dir: t.TempDir(), out: &logtest.Buffer{}, done: make(chan error, 1)}
	if c.Setup != nil {
		c.Setup(t, r.dir)
	}
	script := filepath.Join(r.dir, "script")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(Script4, r.dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	args := c.Run(iface, script, r.dir)
	if c.Name == Dhcpcd4.Name {
		args = dhcpcdPrivate(t, r.dir, strings.Join(args, " "))
	}
	r.cmd = exec.Command("ip", append([]string{"netns", "exec", ns}, args...)...)
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	// Its own process group, killed whole: dhcpcd forks helpers.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() {
		r.Stop()
		if t.Failed() {
			t.Logf("%s in %s: output:\n%s\nevents: %v", c.Name, ns, r.out, r.Events())
		}
	})
	return r
}

// Client is the client this runs.
func (r *Run4) Client() Client4 { return r.c }

// Output is what the client printed so far.
func (r *Run4) Output() string { return r.out.String() }

// Stop kills the client's process group (no RELEASE) and waits up to
// 5 s for it to exit.
func (r *Run4) Stop() {
	if r.exited {
		return
	}
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-r.done:
		r.exited = true
	case <-time.After(5 * time.Second):
		r.t.Errorf("%s did not exit within 5s of SIGKILL", r.c.Name)
	}
}

// Events are the script's events so far, in order.
func (r *Run4) Events() []Event4 {
	var evs []Event4
	for _, e := range ScriptEvents(r.dir) {
		evs = append(evs, Event4{Name: e.Env["EVENT"], Kind: r.c.Kind(e.Env["EVENT"]),
			Addr: strings.Trim(e.Env[r.c.Vars[0]], `"'`), Env: e.Env, At: e.At})
	}
	return evs
}

// ScriptEvent is one event a client's script wrote: its variables, and
// when.
type ScriptEvent struct {
	Env map[string]string
	At  time.Time
}

// ScriptEvents reads the events a client's script (Script4) wrote into
// dir, in order: one file ev.<Unix nanoseconds> of KEY=value lines each;
// a .tmp file is one still being written, and is left out.
func ScriptEvents(dir string) []ScriptEvent {
	files, _ := filepath.Glob(filepath.Join(dir, "ev.*"))
	slices.Sort(files)
	var evs []ScriptEvent
	for _, f := range files {
		if strings.HasSuffix(f, ".tmp") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		env := map[string]string{}
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				env[k] = v
			}
		}
		var ns int64
		fmt.Sscanf(strings.TrimPrefix(filepath.Base(f), "ev."), "%d", &ns)
		evs = append(evs, ScriptEvent{Env: env, At: time.Unix(0, ns)})
	}
	return evs
}

// Wait waits up to timeout for an event of kind among those after the
// first n, and returns it; it fails the test if none comes.
func (r *Run4) Wait(n int, kind string, timeout time.Duration) Event4 {
	r.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		evs := r.Events()
		for i := n; i < len(evs); i++ {
			if evs[i].Kind == kind {
				return evs[i]
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: no %q event within %v; events: %v", r.c.Name, kind, timeout, evs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
