// Package pooltest is what the agent's and poolsource's tests share to
// write pool files. Only tests import it. It does not import poolsource,
// whose own tests use it.
package pooltest

import (
	"encoding/json"
	"os"
	"testing"
)

// WriteFile replaces the file at path with p (a poolsource.Pool) as
// indented JSON, atomically (a temporary file renamed over path), as
// poolsource.File's Watch asks of writers; any error fails t.
func WriteFile(t testing.TB, path string, p any) {
	t.Helper()
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
