package fieldcases

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// root is the repository's root, from this package's folder.
const root = "../.."

// TestEveryCaseRunsInEveryPackage fails when a package that decides something
// about a field case has no test function of the case's name, so that a new
// rule cannot drop a case quietly: removing the test is as visible as
// failing it.
func TestEveryCaseRunsInEveryPackage(t *testing.T) {
	for _, c := range All {
		for _, pkg := range c.Packages {
			t.Run(fmt.Sprintf("case %d/%s", c.Number, pkg), func(t *testing.T) {
				funcs, err := testFuncs(filepath.Join(root, pkg))
				if err != nil {
					t.Fatal(err)
				}
				if !funcs[c.Test] {
					t.Errorf("%s has no func %s: field case %d (%s) must run there", pkg, c.Test, c.Number, c.Title)
				}
			})
		}
	}
}

// TestListMatchesDocument fails when docs/field-cases.md has a case All does
// not name (or the other way round), and when the project's own
// FIELD-CASES.md, which CI lays beside the repository as ../shared, differs
// from the copy in docs/.
func TestListMatchesDocument(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "field-cases.md"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range All {
		want = append(want, strconv.Itoa(c.Number)+". "+c.Title)
	}
	if diff := cmp.Diff(want, headings(doc)); diff != "" {
		t.Errorf("cases of docs/field-cases.md (-All +document):\n%s", diff)
	}
	shared := filepath.Join(root, "..", "shared", "FIELD-CASES.md")
	orig, err := os.ReadFile(shared)
	if os.IsNotExist(err) {
		t.Logf("%s is not beside this clone: docs/field-cases.md checked alone", shared)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(orig, doc) {
		t.Errorf("docs/field-cases.md differs from %s: copy it, then name any new case in All", shared)
	}
}

var heading = regexp.MustCompile(`^## ([0-9]+\. .+)$`)

// headings returns the "N. Title" of each case heading of a field-cases
// document.
func headings(doc []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		if m := heading.FindStringSubmatch(sc.Text()); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// testFuncs returns the names of the top-level functions of the _test.go
// files in dir.
func testFuncs(dir string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no test files in %s", dir)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range af.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				out[fn.Name.Name] = true
			}
		}
	}
	return out, nil
}
