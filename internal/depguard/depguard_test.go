package depguard

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corePatterns are the packages that must stay pure.
var corePatterns = []string{
	"github.com/vmnetkit/vmnetkit/ipam/...",
	"github.com/vmnetkit/vmnetkit/leasestore/...",
	"github.com/vmnetkit/vmnetkit/conditions/...",
	"github.com/vmnetkit/vmnetkit/readiness/...",
}

// forbiddenStd are standard packages that a core package must not reach,
// even transitively: they mean I/O, processes, or logging.
var forbiddenStd = map[string]bool{
	"net/http": true,
	"os/exec":  true,
	"log":      true,
	"log/slog": true,
}

// allowedModules may be required by the root module; the first is the only
// one core packages may import.
var allowedModules = map[string]bool{
	"go4.org/netipx":              true,
	"github.com/stretchr/testify": true,
	"github.com/google/go-cmp":    true,
	"pgregory.net/rapid":          true,
}

const self = "github.com/vmnetkit/vmnetkit"

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// TestCoreImports lists every package the core packages depend on (not their
// tests) and fails on anything outside the standard library, this module and
// netipx, or on a forbidden standard package.
func TestCoreImports(t *testing.T) {
	root := moduleRoot(t)
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}|{{.Standard}}"}, corePatterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	var bad []string
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		path, std, _ := strings.Cut(line, "|")
		seen++
		switch {
		case std == "true":
			if forbiddenStd[path] {
				bad = append(bad, path+" (forbidden standard package)")
			}
		case path == self || strings.HasPrefix(path, self+"/"):
			if strings.HasPrefix(path, self+"/examples") {
				bad = append(bad, path+" (adapters must not be imported by the core)")
			}
		case path == "go4.org/netipx" || strings.HasPrefix(path, "go4.org/netipx/"):
		default:
			bad = append(bad, path+" (module not allowed in core packages)")
		}
	}
	if seen == 0 {
		t.Fatal("go list returned no packages; the guard checked nothing")
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("core package dependency: %s", b)
	}
}

// TestRootModuleRequires reads go.mod and fails on a direct requirement
// outside the allowed list. Indirect requirements are the allowed modules'
// own dependencies.
func TestRootModuleRequires(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range requiredModules(data, false) {
		if !allowedModules[m] {
			t.Errorf("go.mod requires %s, which the root module may not depend on", m)
		}
	}
}

func TestRequiredModules(t *testing.T) {
	gomod := []byte(`module x

go 1.26

require go4.org/netipx v0.0.0

require (
	github.com/google/go-cmp v0.7.0
	gopkg.in/yaml.v3 v3.0.1 // indirect
	k8s.io/api v0.34.4
)
`)
	got := strings.Join(requiredModules(gomod, false), ",")
	want := "go4.org/netipx,github.com/google/go-cmp,k8s.io/api"
	if got != want {
		t.Errorf("requiredModules(direct) = %q, want %q", got, want)
	}
	got = strings.Join(requiredModules(gomod, true), ",")
	want = "go4.org/netipx,github.com/google/go-cmp,gopkg.in/yaml.v3,k8s.io/api"
	if got != want {
		t.Errorf("requiredModules(all) = %q, want %q", got, want)
	}
}

// requiredModules returns the module paths of go.mod's require directives,
// in file order; indirect ones only when withIndirect is set.
func requiredModules(gomod []byte, withIndirect bool) []string {
	var mods []string
	inBlock := false
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		var spec string
		switch {
		case inBlock && line == ")":
			inBlock = false
			continue
		case inBlock:
			spec = line
		case line == "require (":
			inBlock = true
			continue
		case strings.HasPrefix(line, "require "):
			spec = strings.TrimPrefix(line, "require ")
		default:
			continue
		}
		if spec == "" || strings.HasPrefix(spec, "//") {
			continue
		}
		if strings.Contains(spec, "// indirect") && !withIndirect {
			continue
		}
		mods = append(mods, strings.Fields(spec)[0])
	}
	return mods
}
