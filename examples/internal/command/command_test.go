package command

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantCode   int
		wantStderr string
	}{
		{name: "success", err: nil, wantCode: 0, wantStderr: ""},
		{name: "help", err: flag.ErrHelp, wantCode: 0, wantStderr: ""},
		{name: "wrapped help", err: fmt.Errorf("parse: %w", flag.ErrHelp), wantCode: 0, wantStderr: ""},
		{name: "failure", err: errors.New("-pool is required"), wantCode: 1, wantStderr: "agent: -pool is required\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if got := ExitCode("agent", tt.err, &stderr); got != tt.wantCode {
				t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.wantCode)
			}
			if got := stderr.String(); got != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", got, tt.wantStderr)
			}
		})
	}
}

func TestLoggingVerbosity(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantDebug bool
	}{
		{name: "default", args: nil, wantDebug: false},
		{name: "debug", args: []string{"-v=1"}, wantDebug: true},
		{name: "more than debug", args: []string{"-v", "4"}, wantDebug: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			logging := AddLoggingFlags(fs, &out)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			log := logging.Logger()
			log.Info("summary", "requests", 3)
			log.V(Debug).Info("per request", "mac", "52:54:00:aa:bb:cc")
			got := out.String()
			if !strings.Contains(got, `"summary" requests=3`) {
				t.Errorf("info line missing from %q", got)
			}
			if gotDebug := strings.Contains(got, `"per request"`); gotDebug != tt.wantDebug {
				t.Errorf("debug line logged = %v, want %v; output %q", gotDebug, tt.wantDebug, got)
			}
		})
	}
}

func TestLoggingFlagsInHelp(t *testing.T) {
	var out bytes.Buffer
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(&out)
	AddLoggingFlags(fs, &out)
	if err := fs.Parse([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("Parse(-h) = %v, want flag.ErrHelp", err)
	}
	for _, name := range []string{"-v", "-vmodule"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("usage does not list %s:\n%s", name, out.String())
		}
	}
	if strings.Contains(out.String(), "testing logger") {
		t.Errorf("usage still calls -v klog's testing logger:\n%s", out.String())
	}
}
