#!/usr/bin/env bash
# importer-check.sh proves the kube module's promise to its importers (hack/test.sh
# runs it): a controller module on go 1.23 with the oldest controller-runtime
# the bridge supports can require the bridge and the core, and none of its
# requirements move.
#
# It simulates a release of the working tree (the files a commit would hold):
# the core as github.com/vmnetkit/vmnetkit@$version and the bridge as
# github.com/vmnetkit/vmnetkit/kube@$version, whose go.mod requires the core
# at $version, as the release commit's kube/go.mod will (the replace beside
# it is ignored by importers). Both are served from a file-based module proxy
# in front of the machine's module cache and the usual GOPROXY, into a
# module cache of the check's own, so the simulated versions never reach the
# shared one. Then, in a throwaway importer module:
#
#  1. go 1.23 and a reconciler on controller-runtime $cr: go mod tidy, and
#     the module list before;
#  2. the same reconciler using kube.SetMeta, kube.FindMeta, cacheready and
#     ipam; go get of both modules at $version, go mod tidy, the module list
#     after, and go build with the $importer_go toolchain.
#
# It fails if the go line or a toolchain line changed, if a module of the
# list before changed version, or if a module entered that is neither one of
# ours nor a requirement of the core's go.mod (so no cluster-api, DHCP
# library or Prometheus client of the examples' world).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# What go downloads is noise here; everything else it says stays.
exec 2> >(grep --line-buffered -v '^go: downloading ' >&2)
export LC_ALL=C # sort and join agree on the order

# The oldest controller-runtime on the bridge's minimum apimachinery
# (kube/go.mod): v0.18.0 is built on k8s.io/apimachinery v0.30.0. Checked
# below, so that raising the bridge's minimum without this pin fails here.
cr=v0.18.0
importer_go=go1.23.0
# The simulated release is v0.1.0 with the working tree's content hash as a
# pre-release: the go command takes a module version's content as fixed (its
# build cache may reuse what it compiled for the same version), so a
# different tree must never come under a version an earlier run used.
version=v0.1.0-check.$( (git ls-files -co --exclude-standard | LC_ALL=C sort | while IFS= read -r f; do
	[ -f "$f" ] && sha256sum "$f"
done) | sha256sum | cut -c1-12)
core=github.com/vmnetkit/vmnetkit
bridge=$core/kube

shared_cache=$(go env GOMODCACHE)
upstream=$(go env GOPROXY)
# The go 1.23 toolchain, from the module proxy (cached in the shared cache).
go123=$(GOTOOLCHAIN=$importer_go go env GOROOT)/bin/go

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The modules that may enter the importer's graph: those of the core's and
# the bridge's own graphs (our two modules, netipx, the core's test
# requirements and theirs), never one only the examples need.
allowed=$( (cd "$root" && GOWORK=off go list -m -f '{{.Path}}' all) && (cd "$root/kube" && GOWORK=off go list -m -f '{{.Path}}' all))

bridge_machinery=$(sed -n 's#^[[:space:]]*k8s.io/apimachinery \(v[^ ]*\).*#\1#p' kube/go.mod)
cr_mod=$(cd "$tmp" && GOWORK=off go mod download -json "sigs.k8s.io/controller-runtime@$cr" | sed -n 's#.*"GoMod": "\(.*\)".*#\1#p')
cr_machinery=$(sed -n 's#^[[:space:]]*k8s.io/apimachinery \(v[^ ]*\).*#\1#p' "$cr_mod")
if [ "$bridge_machinery" != "$cr_machinery" ]; then
	echo "kube/go.mod requires k8s.io/apimachinery $bridge_machinery; controller-runtime $cr is built on $cr_machinery:"
	echo "pin in hack/importer-check.sh the oldest controller-runtime on $bridge_machinery"
	exit 1
fi
echo "bridge: k8s.io/apimachinery $bridge_machinery, go $(sed -n 's/^go //p' kube/go.mod); importer: controller-runtime $cr (apimachinery $cr_machinery), go 1.23, toolchain $importer_go"

# A module cache of the check's own, at a fixed path (the build cache keys
# on source paths, so a new path each run would compile controller-runtime
# and client-go each time), that our simulated releases never leave; it
# holds them only from one run to the next, and each run drops them first.
cache=${VMNETKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vmnetkit}/importer-check
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # another run may be using the same cache
export GOMODCACHE=$cache/modcache
for d in "$GOMODCACHE/github.com/vmnetkit" "$GOMODCACHE/cache/download/github.com/vmnetkit"; do
	if [ -e "$d" ]; then
		chmod -R u+w "$d" && rm -rf "$d"
	fi
done

export GOWORK=off GOTOOLCHAIN=local
export GOPROXY="file://$tmp/proxy,file://$shared_cache/cache/download,$upstream"
# Our simulated releases are in no checksum database: only they skip it.
export GONOSUMDB=github.com/vmnetkit
unset GOPRIVATE GONOPROXY GOINSECURE

# The zipper: the files of a staged module under module@version/, without
# folder entries, as golang.org/x/mod/zip lays a module out (the standard
# library only, so that the check needs nothing but Go).
mkdir -p "$tmp/zipper"
cat >"$tmp/zipper/go.mod" <<'GOEOF'
module zipper

go 1.23
GOEOF
cat >"$tmp/zipper/main.go" <<'GOEOF'
package main

import (
	"archive/zip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// zipper stage prefix out: the files under stage/prefix, named prefix/...
func main() {
	stage, prefix, out := os.Args[1], os.Args[2], os.Args[3]
	f, err := os.Create(out)
	check(err)
	w := zip.NewWriter(f)
	check(filepath.WalkDir(filepath.Join(stage, prefix), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(stage, path)
		if err != nil {
			return err
		}
		dst, err := w.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(dst, src)
		return err
	}))
	check(w.Close())
	check(f.Close())
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
GOEOF

# release dir module writes the module in folder dir (of the working tree)
# as module@$version into the file proxy: .info, .mod and a zip in the
# golang.org/x/mod/zip layout (files under module@version/, without nested
# modules). A go.mod edit, if any, is given as further go mod edit flags.
release() {
	local dir=$1 module=$2
	shift 2
	local stage=$tmp/stage/$module@$version at=$tmp/proxy/$module/@v
	mkdir -p "$stage" "$at"
	(cd "$dir" && git ls-files -co --exclude-standard) | while IFS= read -r f; do
		[ -f "$dir/$f" ] || continue # deleted in the working tree
		mkdir -p "$stage/$(dirname "$f")"
		cp "$dir/$f" "$stage/$f"
	done
	# Folders holding a go.mod are other modules: not part of this one.
	(cd "$stage" && find . -mindepth 2 -name go.mod -printf '%h\n' | xargs -r rm -rf)
	if [ $# -gt 0 ]; then
		(cd "$stage" && go mod edit "$@")
	fi
	cp "$stage/go.mod" "$at/$version.mod"
	printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$at/$version.info"
	echo "$version" >"$at/list"
	(cd "$tmp/zipper" && go run . "$tmp/stage" "$module@$version" "$at/$version.zip")
}
release "$root" "$core"
release "$root/kube" "$bridge" -require="$core@$version" -dropreplace="$core"

imp=$tmp/importer
mkdir -p "$imp"
cd "$imp"
cat >go.mod <<EOF
module example.com/importer

go 1.23

require sigs.k8s.io/controller-runtime $cr
EOF
cat >main.go <<'EOF'
// Command importer is a controller as a user writes it, to check what
// requiring vmnetkit does to its module graph.
package main

import (
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
)

func main() {
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{})
	if err != nil {
		panic(err)
	}
	r := &reconciler{Client: mgr.GetClient()}
	if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(r); err != nil {
		panic(err)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		panic(err)
	}
}
EOF
cat >reconciler.go <<'EOF'
package main

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type reconciler struct {
	client.Client
	status []metav1.Condition
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	return ctrl.Result{}, client.IgnoreNotFound(r.Get(ctx, req.NamespacedName, &cm))
}
EOF

# modules lists "path version" of every module but the main one.
modules() { go list -m -f '{{if not .Main}}{{.Path}} {{.Version}}{{end}}' all | sed '/^$/d' | sort; }
golines() { grep -E '^(go|toolchain) ' go.mod; }

go mod tidy
modules >"$tmp/before"
golines >"$tmp/golines.before"

cat >reconciler.go <<'EOF'
package main

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/vmnetkit/vmnetkit/conditions"
	"github.com/vmnetkit/vmnetkit/conditions/cacheready"
	"github.com/vmnetkit/vmnetkit/ipam"
	"github.com/vmnetkit/vmnetkit/kube"
)

type reconciler struct {
	client.Client
	status []metav1.Condition
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	spec, err := ipam.SpecText{CIDR: cm.Data["cidr"]}.Parse()
	if err != nil {
		return ctrl.Result{}, err
	}
	pool, err := ipam.New(spec)
	if err != nil {
		return ctrl.Result{}, err
	}
	if _, err := pool.Allocate(cm.Name); err != nil {
		return ctrl.Result{}, err
	}
	observed := cacheready.Observed{Generation: cm.Generation}
	if c, ok := kube.FindMeta(r.status, cacheready.Type); ok {
		observed.Stored = &c
	}
	_, d := cacheready.New(kube.NewEpoch()).Step(observed)
	if d.Publish != nil {
		r.status, _ = kube.SetMeta(r.status, *d.Publish, time.Now())
	}
	r.status, _ = kube.SetMeta(r.status, conditions.Condition{Type: "Ready", Status: conditions.ConditionTrue, Reason: "Allocated"}, time.Now())
	return ctrl.Result{}, nil
}
EOF
go get "$bridge@$version" "$core@$version"
go mod tidy
modules >"$tmp/after"
golines >"$tmp/golines.after"

echo
echo "the importer's modules, before and after requiring $bridge and $core at $version:"
join -a1 -a2 -e - -o 0,1.2,2.2 "$tmp/before" "$tmp/after" | awk '
	{ mark = ($2 == $3) ? "" : ($2 == "-" ? "  (new)" : "  (MOVED)"); printf "  %-60s %-40s %s%s\n", $1, $2, $3, mark }'

fail=0
if ! diff -u "$tmp/golines.before" "$tmp/golines.after"; then
	echo "FAIL: the importer's go or toolchain line changed"
	fail=1
fi
moved=$(join -o 0,1.2,2.2 "$tmp/before" "$tmp/after" | awk '$2 != $3')
gone=$(join -v1 "$tmp/before" "$tmp/after")
if [ -n "$moved$gone" ]; then
	echo "FAIL: requirements the importer already had moved:"
	echo "$moved$gone" | sed 's/^/  /'
	fail=1
fi
# What may enter: our two modules and their own module graphs.
entered=$(join -v2 "$tmp/before" "$tmp/after" | cut -d' ' -f1 | grep -vxF -f <(echo "$allowed") || true)
if [ -n "$entered" ]; then
	echo "FAIL: modules entered the importer's graph that are in neither the core's nor the bridge's graph:"
	echo "$entered" | sed 's/^/  /'
	fail=1
fi
for m in sigs.k8s.io/cluster-api github.com/insomniacslk/dhcp github.com/prometheus/client_golang; do
	if grep -q "^$m " "$tmp/after" && ! grep -q "^$m " "$tmp/before"; then
		echo "FAIL: $m (the examples' world) entered the importer's graph"
		fail=1
	fi
done
echo "+ go build, with the $importer_go toolchain"
if ! GOTOOLCHAIN=local "$go123" build -o /dev/null .; then
	echo "FAIL: the importer does not build with $importer_go"
	fail=1
fi
[ "$fail" = 0 ] || exit 1
echo "importer check: go line kept, no requirement moved, only $(join -v2 "$tmp/before" "$tmp/after" | cut -d' ' -f1 | tr '\n' ' ')entered"
