package vmnetkit_test

import (
	"bufio"
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
)

// readmeBlocksFile holds the README's Go blocks as compiled code.
const readmeBlocksFile = "readme_examples_test.go"

// goBlocks returns the fenced blocks of a Markdown text whose info string
// names Go (```go), each with its final newline, in order.
func goBlocks(t *testing.T, markdown string) []string {
	t.Helper()
	var (
		blocks      []string
		block       strings.Builder
		inFence     bool // between an opening ``` and its closing one
		inGoFence   bool // and that fence is a Go block
		fenceLineNo int
	)
	sc := bufio.NewScanner(strings.NewReader(markdown))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case !inFence && strings.HasPrefix(line, "```"):
			info := strings.Fields(strings.TrimPrefix(line, "```"))
			inFence, fenceLineNo = true, n
			inGoFence = len(info) > 0 && (info[0] == "go" || info[0] == "golang")
			block.Reset()
		case inFence && strings.TrimSpace(line) == "```":
			if inGoFence {
				blocks = append(blocks, block.String())
			}
			inFence, inGoFence = false, false
		case inGoFence:
			block.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if inFence {
		t.Fatalf("the code fence opened at line %d is not closed", fenceLineNo)
	}
	return blocks
}

// TestREADMEGoBlocks checks that every Go block of README.md compiles: the
// blocks, joined by one blank line, must be byte for byte what
// readme_examples_test.go holds after its imports, and that file is compiled
// (and its Examples run) by this package's tests. It also refuses a Go
// block in any other Markdown file of the repository, which nothing would
// compile.
func TestREADMEGoBlocks(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlocks(t, string(readme))
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block; the embedding example is expected there")
	}

	src, err := os.ReadFile(readmeBlocksFile)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, readmeBlocksFile, src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Decls) == 0 {
		t.Fatalf("%s has no import declaration", readmeBlocksFile)
	}
	afterImports := fset.Position(f.Decls[len(f.Decls)-1].End()).Offset
	got := strings.TrimLeft(string(src[afterImports:]), "\n")
	want := strings.Join(blocks, "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the ```go blocks of README.md (want) and %s after its imports (got) differ; edit both together (-want +got):\n%s", readmeBlocksFile, diff)
	}

	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") || path == "README.md" {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := len(goBlocks(t, string(text))); n > 0 {
			t.Errorf("%s has %d ```go block(s) that no test compiles; link to compiled code instead", path, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestREADMELength keeps README.md the short page for users it is meant to
// be; the adapters' manuals are their own READMEs, the measurements are in
// docs/performance.md.
func TestREADMELength(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const max = 300
	if n := strings.Count(string(readme), "\n"); n > max {
		t.Errorf("README.md has %d lines, want at most %d", n, max)
	}
}

// TestREADMESyncCache runs the README's syncCache through a restart: the
// True a previous process wrote is not trusted, a build makes it True with
// the new epoch, and a failed build is published as BuildFailed.
func TestREADMESyncCache(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	old := PoolStatus{
		Conditions: []conditions.Condition{{
			Type: cacheready.Type, Status: conditions.ConditionTrue, ObservedGeneration: 4,
			LastTransitionTime: now.Add(-time.Hour), Reason: cacheready.ReasonCacheBuilt,
		}},
		CacheEpoch: "epoch-a1",
	}
	if ready, reason := cacheready.IsReady(old.Conditions, 4, old.CacheEpoch, "epoch-b2"); ready || reason != cacheready.ReasonOwnerRestarted {
		t.Fatalf("IsReady of the old process's True = %v, %q; want false, %q", ready, reason, cacheready.ReasonOwnerRestarted)
	}

	tests := []struct {
		name       string
		buildErr   error
		wantState  cacheready.State
		wantStatus conditions.Status
		wantReason string
		wantReady  bool
	}{
		{name: "build succeeds", wantState: cacheready.StateReady, wantStatus: conditions.ConditionTrue, wantReason: cacheready.ReasonCacheBuilt, wantReady: true},
		{name: "build fails", buildErr: errors.New("disk on fire"), wantState: cacheready.StateFailed, wantStatus: conditions.ConditionFalse, wantReason: cacheready.ReasonBuildFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := PoolStatus{Conditions: append([]conditions.Condition(nil), old.Conditions...), CacheEpoch: old.CacheEpoch}
			var built []int64
			m := syncCache(cacheready.New("epoch-b2"), 4, &st, now, func(gen int64) error {
				built = append(built, gen)
				return tt.buildErr
			})
			if diff := cmp.Diff([]int64{4}, built); diff != "" {
				t.Errorf("builds (-want +got):\n%s", diff)
			}
			if m.State() != tt.wantState {
				t.Errorf("machine state = %v, want %v", m.State(), tt.wantState)
			}
			c, ok := conditions.Find(st.Conditions, cacheready.Type)
			if !ok || c.Status != tt.wantStatus || c.Reason != tt.wantReason || c.ObservedGeneration != 4 {
				t.Errorf("stored CacheReady = %+v, %v; want %s/%s for generation 4", c, ok, tt.wantStatus, tt.wantReason)
			}
			if !c.LastTransitionTime.Equal(now) {
				t.Errorf("LastTransitionTime = %v, want %v (the status changed)", c.LastTransitionTime, now)
			}
			if st.CacheEpoch != "epoch-b2" {
				t.Errorf("CacheEpoch = %q, want epoch-b2", st.CacheEpoch)
			}
			if ready, _ := cacheready.IsReady(st.Conditions, 4, st.CacheEpoch, "epoch-b2"); ready != tt.wantReady {
				t.Errorf("IsReady = %v, want %v", ready, tt.wantReady)
			}
		})
	}
}
