package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vmnetkit/vmnetkit/examples/internal/logtest"
)

// buildBinaries builds the operator's and the agent's commands into
// the files operator and agent: the test runs them as processes, so that
// a SIGKILL is a real one. It may run beside the test (it calls no
// testing.TB method).
func buildBinaries(operator, agent string) error {
	for pkg, out := range map[string]string{"../../operator": operator, "..": agent} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	return nil
}

// process is one run of a command; its output goes to log.
type process struct {
	t       testing.TB
	name    string
	cmd     *exec.Cmd
	log     *logtest.Buffer
	done    chan struct{}
	started time.Time
	killed  bool
}

// startProcess starts argv, inside network namespace ns unless ns is
// empty (ip netns exec execs the command: its process is the command's,
// so that a signal to it reaches the command). t.Cleanup kills it and,
// if the test failed, logs its output.
func startProcess(t testing.TB, name, ns string, argv ...string) *process {
	t.Helper()
	if ns != "" {
		argv = append([]string{"ip", "netns", "exec", ns}, argv...)
	}
	p := &process{t: t, name: name, log: &logtest.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("%s (%s) output:\n%s", name, strings.Join(argv, " "), p.log)
		}
	})
	return p
}

// kill sends SIGKILL and waits for the exit.
func (p *process) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.killed = true
	p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.t.Errorf("%s still runs 10s after SIGKILL", p.name)
	}
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
