package vmnetkit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Limits of the rule "docs say each thing once": a package's doc.go is a
// short contract (what the package is, the rules a caller relies on), and
// an adapter's README says what it does and how to run, deploy and test
// it; rationale goes to the adapter's docs/<adapter>-design.md page or
// next to the code it explains, figures to docs/performance.md.
const (
	maxDocGoLines  = 40
	maxREADMELines = 250
)

// TestDocGoLength fails for every doc.go of the repository (the examples'
// included) longer than maxDocGoLines.
func TestDocGoLength(t *testing.T) {
	checked := 0
	walkRepo(t, func(path string) {
		if filepath.Base(path) != "doc.go" {
			return
		}
		checked++
		if n := lineCount(t, path); n > maxDocGoLines {
			t.Errorf("%s has %d lines, want at most %d: keep the contract, move the rationale next to the code it explains or to docs/", path, n, maxDocGoLines)
		}
	})
	if checked < 10 {
		t.Errorf("checked %d doc.go files; the walk is broken", checked)
	}
}

// TestAdapterREADMELength fails for every README.md under examples/ longer
// than maxREADMELines.
func TestAdapterREADMELength(t *testing.T) {
	checked := 0
	walkRepo(t, func(path string) {
		if filepath.Base(path) != "README.md" || !strings.HasPrefix(filepath.ToSlash(path), "examples/") {
			return
		}
		checked++
		if n := lineCount(t, path); n > maxREADMELines {
			t.Errorf("%s has %d lines, want at most %d: move the design rationale to docs/", path, n, maxREADMELines)
		}
	})
	if checked < 3 {
		t.Errorf("checked %d adapter READMEs; the walk is broken", checked)
	}
}

// lineCount is the number of lines of the file at path.
func lineCount(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}
