package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunErrors checks that bad flags and a bad first load stop the
// command before it binds a socket.
func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"spec": {"cidr": "10.0.0.0/24"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no pool", nil, "-pool is required"},
		{"bad poll", []string{"-pool", bad, "-poll", "0s"}, "-poll 0s: must be positive"},
		{"bad listen", []string{"-pool", bad, "-listen", "nowhere"}, `-listen "nowhere"`},
		{"missing file", []string{"-pool", filepath.Join(dir, "none.json")}, "no such file"},
		{"invalid pool", []string{"-pool", bad}, `spec.serverIP "": required`},
		{"unknown flag", []string{"-pol", bad}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}
