package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFlags: -h prints the flags; an unknown flag or a missing
// kubeconfig file is an error before any manager starts.
func TestRunFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr error
		stderr  string
	}{
		{name: "help", args: []string{"-h"}, wantErr: flag.ErrHelp, stderr: "-concurrent-claims"},
		{name: "unknown flag", args: []string{"-no-such-flag"}, stderr: "no-such-flag"},
		{name: "missing kubeconfig file", args: []string{"-kubeconfig", filepath.Join(t.TempDir(), "none")}, stderr: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stderr)
			if err == nil {
				t.Fatalf("run(%q) = nil, want an error", tt.args)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("run(%q) = %v, want %v", tt.args, err, tt.wantErr)
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("run(%q) printed %q, want it to mention %q", tt.args, stderr.String(), tt.stderr)
			}
		})
	}
}
