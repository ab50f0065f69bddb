#!/usr/bin/env bash
# generate.sh regenerates every generated file of the repository (`make
# generate`) with controller-gen, built from the Go module proxy at the one
# version pinned below:
#
#   examples/operator/api/v1alpha1/zz_generated.deepcopy.go   deep copies
#   examples/operator/config/crd/*.yaml                        IPPool, VMNetworkConfig CRDs
#   examples/operator/config/rbac/role.yaml                    the operator's ClusterRole
#   examples/provider/api/v1alpha1/zz_generated.deepcopy.go   deep copies
#   examples/provider/config/crd/*.yaml                        VMMachine CRD
#
#   hack/generate.sh           rewrite those files in the working tree
#   hack/generate.sh -check    change nothing; fail, showing the diff, when a
#                              checked-in file differs from what the markers
#                              generate (hack/test.sh runs this)
#
# Both modes generate into a temporary folder first, so the check never
# rewrites a developer's tree. In a generated folder (config/crd,
# config/rbac) the *.yaml files are compared or replaced as a set: a
# manifest whose type is gone is stale too.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# The one pin of the code generator (it matches controller-runtime v0.22 and
# the v0.34 API libraries of examples/go.mod).
controller_gen=sigs.k8s.io/controller-tools/cmd/controller-gen@v0.19.0

check=false
case "${1:-}" in
"") ;;
-check) check=true ;;
*)
	echo "usage: hack/generate.sh [-check]" >&2
	exit 2
	;;
esac

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# gen runs controller-gen in the examples module (paths are relative to it).
gen() { (cd examples && GOWORK=off go run "$controller_gen" "$@"); }

# Each generated file or folder, relative to the repository root.
targets=()

# api generates the deep copies and CRDs of one API package: $1 is the
# package folder, $2 the CRD folder, both relative to examples/.
api() {
	gen object paths="./$1" output:object:dir="$out/examples/$1" \
		crd paths="./$1" output:crd:dir="$out/examples/$2"
	targets+=("examples/$1/zz_generated.deepcopy.go" "examples/$2")
}
api operator/api/v1alpha1 operator/config/crd
api provider/api/v1alpha1 provider/config/crd

gen rbac:roleName=vmnetkit-operator paths=./operator/controller/... \
	output:rbac:dir="$out/examples/operator/config/rbac"
targets+=(examples/operator/config/rbac)

# yamls lists the *.yaml files of folder $1, one name a line.
yamls() { (cd "$1" 2>/dev/null && ls -1 -- *.yaml 2>/dev/null) || true; }

if $check; then
	stale=false
	for t in "${targets[@]}"; do
		if [ -d "$out/$t" ]; then
			# Copy the checked-in manifests beside the generated ones, so
			# one diff shows changed, missing and extra files alike.
			mkdir -p "$out/checked-in/$t"
			for f in $(yamls "$root/$t"); do cp "$root/$t/$f" "$out/checked-in/$t/"; done
			(cd "$out" && diff -ru "checked-in/$t" "$t") || stale=true
		else
			diff -u --label "checked-in/$t" --label "$t" "$root/$t" "$out/$t" || stale=true
		fi
	done
	if $stale; then
		echo "generated files are stale (diff: -checked-in +generated): run make generate" >&2
		exit 1
	fi
	echo "generated files are up to date"
	exit 0
fi

for t in "${targets[@]}"; do
	if [ -d "$out/$t" ]; then
		mkdir -p "$root/$t"
		for f in $(yamls "$root/$t"); do rm "$root/$t/$f"; done
		cp "$out/$t"/*.yaml "$root/$t/"
	else
		cp "$out/$t" "$root/$t"
	fi
	echo "generated $t"
done
