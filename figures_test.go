package vmnetkit_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// performancePage is the one page that holds measured figures; the bench
// targets print its tables (see the page for which target writes which).
const performancePage = "docs/performance.md"

// figurePattern matches what the figures rule calls a figure: a measured
// quantity, written as a number (digits, "," between thousands, an
// optional decimal part) and one of these units:
//
//   - a ratio, the number glued to "x": "210x", "0.96x";
//   - a duration under a second or with a decimal part: "ns", "µs", "us",
//     "ms" after any number ("9 ms"), "s" or "min" after a decimal one
//     ("55.1 s");
//   - a size in decimal units: "B", "kB", "KB", "MB", "GB" ("2.3 MB");
//     binary units (KiB, MiB) are settings, such as buffer sizes;
//   - a cost per unit of work: "ns/op", "B/op", "allocs/op", "ns/lease"
//     and the like (any unit followed by "/" and a word);
//   - a rate: a word followed by "/s" ("1,000 claims/s", "20,000/s");
//   - a percentage: "%".
//
// Whole seconds, minutes and hours ("60 s", "10m"), byte counts written
// "bytes" ("576 bytes") and counts of things ("65,000 leases") are not
// figures: they are settings, protocol limits and sizes of inputs, which a
// README states as facts of the code.
var figurePattern = regexp.MustCompile(
	`(?:^|[^\w.,])(` +
		`\d[\d,]*(?:\.\d+)?x` + // ratio
		`|\d[\d,]*(?:\.\d+)? ?(?:ns|µs|us|ms)(?:/[a-z]+)?` + // short durations, or per unit
		`|\d[\d,]*\.\d+ ?(?:s|min)` + // durations with a fraction
		`|\d[\d,]*(?:\.\d+)? ?(?:B|kB|KB|MB|GB)(?:/[a-z]+)?` + // decimal sizes, or per unit
		`|\d[\d,]*(?:\.\d+)? ?allocs/[a-z]+` + // allocations per unit
		`|\d[\d,]*(?:\.\d+)?(?: [a-zA-Z]+)?/s` + // rates
		`|\d[\d,]*(?:\.\d+)? ?%` + // percentages
		`)(?:$|[^\w/])`)

// figures returns the figures of markdown text, in order, each without
// spaces (see normalFigure). Text in code (fenced blocks and `spans`: commands,
// flags, log lines) and link targets are not prose and hold none.
func figures(markdown string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpan.ReplaceAllString(line, " ")
		line = linkTarget.ReplaceAllString(line, "]")
		// A match consumes the character before and after it; scan on
		// from the end of each figure so that "1.5x, 2x" gives both.
		for rest := line; ; {
			loc := figurePattern.FindStringSubmatchIndex(rest)
			if loc == nil {
				break
			}
			out = append(out, normalFigure(rest[loc[2]:loc[3]]))
			rest = rest[loc[3]:]
		}
	}
	return out
}

var (
	codeSpan   = regexp.MustCompile("`[^`]*`")
	linkTarget = regexp.MustCompile(`\]\([^)]*\)`)
	spaces     = regexp.MustCompile(`\s+`)
)

// normalFigure is f with no space between the number and a unit that
// follows it directly, so that "2.3 ms" and "2.3ms" are one figure.
func normalFigure(f string) string {
	return strings.ReplaceAll(spaces.ReplaceAllString(f, " "), " ", "")
}

// TestFigures checks the figures rule: a README quotes only figures that
// docs/performance.md holds, so that a figure is measured in one place,
// by a bench target, and never copied by hand into a README where the
// next run leaves it stale. It fails on every README.md of the repository
// (the examples' included) that quotes a figure (see figurePattern) the
// performance page does not hold, as the same number and unit.
func TestFigures(t *testing.T) {
	page, err := os.ReadFile(performancePage)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{}
	for _, f := range figures(string(page)) {
		held[f] = true
	}
	if len(held) == 0 {
		t.Fatalf("%s holds no figure: the pattern is broken", performancePage)
	}
	readmes := 0
	walkRepo(t, func(path string) {
		if filepath.Base(path) != "README.md" {
			return
		}
		readmes++
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var missing []string
		for _, f := range figures(string(text)) {
			if !held[f] && !slices.Contains(missing, f) {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s quotes figures that %s does not hold: %s; quote them from there or link to it",
				path, performancePage, strings.Join(missing, ", "))
		}
	})
	if readmes < 2 {
		t.Errorf("found %d README.md files; the walk is broken", readmes)
	}
}

// TestFigurePattern pins down what counts as a figure.
func TestFigurePattern(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"ratios", "Pool takes 1.5x the flat bitmap, the naive map 210x.", []string{"1.5x", "210x"}},
		{"durations", "a save takes 9 ms, a claim 2.3ms, a burst 55.1 s", []string{"9ms", "2.3ms", "55.1s"}},
		{"sizes and costs", "2.3 MB on disk, 48 B/op, 0 allocs/op, 12.5 ns/lease", []string{"2.3MB", "48B/op", "0allocs/op", "12.5ns/lease"}},
		{"rates and percentages", "1,000 claims/s against 20,000/s, 87%", []string{"1,000claims/s", "20,000/s", "87%"}},
		{"settings are not figures", "a 60 s window, 10m of probation, 576 bytes, 4 MiB, 65,000 leases, 2 x 2 NICs", nil},
		{"hex, versions and names are not figures", "0x54, v1.34.4, x86_64, 2x2", nil},
		{"code is not prose", "run `go test -bench . -benchtime 1s` or `-rcvbuf 4MB`", nil},
		{"link targets are not prose", "[numbers](../docs/performance.md#a-1.5x-goal)", nil},
		{"fenced blocks are not prose", "```\n12 ms\n```\nafter: 3 ms", []string{"3ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, figures(tt.text)); diff != "" {
				t.Errorf("figures(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// walkRepo calls fn with the path of every file of the repository,
// outside .git and testdata folders.
func walkRepo(t *testing.T, fn func(path string)) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			fn(path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
