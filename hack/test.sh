#!/usr/bin/env bash
# test.sh is the README's test command (`make test`): everything CI runs.
# It needs only Go and network access to the Go module proxy; whatever else
# the tests need (kube-apiserver and etcd, DHCP test hosts) it sets up itself.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
fuzztime=${FUZZTIME:-4s}
export GOFLAGS=${GOFLAGS:--buildvcs=false}

step() { printf '\n=== %s\n' "$*"; }

step "gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

step "go vet (root module)"
GOWORK=off go vet ./...
step "go vet (examples module)"
(cd examples && GOWORK=off go vet ./...)

step "go test -race (root module, fuzz seeds included)"
GOWORK=off go test -race -count=1 ./...

step "short fuzz runs (${fuzztime} each)"
for pkg in $(GOWORK=off go list ./...); do
	for target in $(GOWORK=off go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "--- $pkg $target"
		GOWORK=off go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg"
	done
done

if [ -x hack/envtest-assets.sh ]; then
	step "kube-apiserver and etcd for envtest (built from the Go module proxy, cached)"
	KUBEBUILDER_ASSETS=$(hack/envtest-assets.sh)
	export KUBEBUILDER_ASSETS
	echo "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
fi

step "go test -race (examples module)"
(cd examples && GOWORK=off go test -race -count=1 ./...)

step "quickstart"
go run ./examples/quickstart >/dev/null

echo
echo "all checks passed"
