#!/usr/bin/env bash
# test.sh is the README's test command (`make test`): everything CI runs.
# It needs only Go and network access to the Go module proxy; whatever else
# the tests need (kube-apiserver and etcd, DHCP test hosts) it sets up itself.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# An execution count, not a duration: Go 1.26's coordinator can fail a
# target with a bare "context deadline exceeded" when a duration runs out
# while a worker is busy (golang/go#75804, fixed in Go 1.27); a count has
# no deadline to race.
fuzztime=${FUZZTIME:-20000x}
# -trimpath: without it the build cache keys every package of this tree by
# its folder, so a fresh clone recompiles all of them (about 200 s of CPU
# per run). -ldflags=-w: no DWARF in the ~100 test binaries it links (a
# fifth of each link; stack traces and the race detector need none).
export GOFLAGS=${GOFLAGS:--buildvcs=false -trimpath -ldflags=-w}

# step names each step with the seconds since the start, so that a log
# shows where the time goes.
start=$SECONDS
step() { printf '\n=== [%ds] %s\n' "$((SECONDS - start))" "$*"; }

step "gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

# Generated files (deep copies, CRDs, RBAC) must match their markers: the
# check generates into a temporary folder and compares, so it never rewrites
# the tree it checks (`make generate` does that).
step "generated files up to date (hack/generate.sh -check)"
hack/generate.sh -check

step "go vet (root module)"
GOWORK=off go vet ./...
step "go vet (kube module)"
(cd kube && GOWORK=off go vet ./...)
step "go vet (examples module)"
(cd examples && GOWORK=off go vet ./...)

# The kube module's promise: a controller on go 1.23 with the oldest
# controller-runtime it supports requires it (and the core) as a release
# would be required, and none of its requirements move.
step "importer check (hack/importer-check.sh)"
hack/importer-check.sh

# Read-only commands leave a fresh clone as it was (go.work.sum is not
# tracked; every go.sum is complete).
step "a fresh clone stays clean (hack/clean-clone-check.sh)"
hack/clean-clone-check.sh

step "kube-apiserver and etcd for envtest (built from the Go module proxy, cached)"
KUBEBUILDER_ASSETS=$(hack/envtest-assets.sh)
export KUBEBUILDER_ASSETS
echo "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"

# The DHCP agent's end-to-end tests build test hosts in network namespaces
# and run real DHCP clients in them (ISC dhclient, busybox udhcpc, dhcpcd;
# dhclient -6 and dhcpcd for DHCPv6), and ISC Kea's DHCPv6 server for the
# DHCPv6 client harness's own test.
missing=""
command -v ip >/dev/null || missing="$missing iproute2"
command -v dhclient >/dev/null || missing="$missing isc-dhcp-client"
command -v udhcpc >/dev/null || missing="$missing udhcpc"
command -v dhcpcd >/dev/null || missing="$missing dhcpcd-base"
command -v kea-dhcp6 >/dev/null || missing="$missing kea-dhcp6-server"
if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	step "installing$missing for the network-namespace tests"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

# The network-namespace packages (the agent's tests and the whole-system
# end-to-end test, about 4 and 7 minutes) mostly wait on DHCP timers: they
# run in the background, beside every other step, and their output is
# printed, and their result counted, at the end.
sleepy="./dhcpagent/agent ./dhcpagent/e2e"
sleepylog=$(mktemp)
step "go test -race $sleepy (examples module, in the background)"
(cd examples && GOWORK=off go test -race -count=1 $sleepy) >"$sleepylog" 2>&1 &
sleepypid=$!
fuzzbin=$(mktemp -d)
trap 'kill $sleepypid 2>/dev/null || true; rm -rf "$sleepylog" "$fuzzbin"' EXIT

step "go test -race (root module, fuzz seeds included)"
GOWORK=off go test -race -count=1 ./...

# fuzz runs every Fuzz target of the module in folder $1 for $fuzztime
# (inputs, or a duration). The targets are found in the test files' text
# (`go test -list` would build every package's test binary once more), and
# each package's instrumented test binary is linked once for all its
# targets (not once per target, as `go test -fuzz` does), then run as
# `go test -fuzz` runs it: in the package's folder (a failing input is
# written to its testdata/fuzz), with Go's fuzz cache.
fuzzcache=$(go env GOCACHE)/fuzz
fuzz() {
	local dir pkg target targets
	while read -r dir pkg; do
		targets=$(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u || true)
		[ -n "$targets" ] || continue
		(cd "$1" && GOWORK=off go test -c -fuzz=. -o "$fuzzbin/fuzz.test" "$pkg")
		for target in $targets; do
			echo "--- $pkg $target"
			(cd "$dir" && "$fuzzbin/fuzz.test" -test.run='^$' -test.fuzz="^${target}\$" \
				-test.fuzztime="$fuzztime" -test.fuzzcachedir="$fuzzcache/$pkg" -test.timeout=10m </dev/null)
		done
	done < <(cd "$1" && GOWORK=off go list -f '{{.Dir}} {{.ImportPath}}' ./...)
}
step "short fuzz runs, root module (${fuzztime} each)"
fuzz .

step "go test -race (kube module, fuzz seeds included)"
(cd kube && GOWORK=off go test -race -count=1 ./...)
step "short fuzz runs, kube module (${fuzztime} each)"
fuzz kube

# The three longest packages (3 to 5 minutes each of API-server tests) are
# named first: go test starts packages about in the order named, and the
# operator's, named in its alphabetical place, ran alone for the last
# three minutes of this step.
first="./capiipam/controller ./capiipam/clusterctltest ./operator/controller"
rest=$(cd examples && GOWORK=off go list ./... | grep -v -x $(for p in $sleepy $first; do printf -- '-e github.com/vmnetkit/vmnetkit/examples/%s ' "${p#./}"; done))
step "go test -race (examples module, but $sleepy)"
(cd examples && GOWORK=off go test -race -count=1 $first $rest)

step "short fuzz runs, examples module (${fuzztime} each)"
fuzz examples

step "quickstart"
go run ./examples/quickstart >/dev/null

step "go test -race $sleepy (started in the background)"
sleepyrc=0
wait $sleepypid || sleepyrc=$?
cat "$sleepylog"
[ $sleepyrc = 0 ] || exit $sleepyrc

echo
echo "all checks passed in $((SECONDS - start)) s"
