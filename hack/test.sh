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
# -trimpath: what the compiler produces no longer depends on where the
# clone is, so a clean clone reuses the build cache for every package it
# did not change (without it, each of the ~100 packages of the three
# modules is compiled again in each of its variants: -race, vet's, the
# fuzzer's). -ldflags=-w: test binaries without DWARF link in about four
# fifths of the time (8 instead of 10 s of CPU for an examples -race test
# binary); stack traces and race reports use the symbol table, which stays.
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

# Read-only commands leave a fresh clone as it was (go.work.sum is not
# tracked; every go.sum is complete). First, before anything else writes.
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

# The examples' tests run in two background lanes beside every other step,
# their output printed, and their result counted, at the end:
#   - the DHCP lane: the packages that run real DHCP clients in network
#     namespaces (the agent's, the end-to-end test) and the socket tests.
#     They mostly wait on the clients' timers, and what they assert depends
#     on being scheduled when a timer fires: they run at normal priority.
#   - the API-server lane: every other package (the API-server tests take
#     minutes each), and, after the lanes start, every step of this script,
#     at nice 10: they fill the machine while the DHCP lane waits and yield
#     to it when it wakes. (Where the kernel groups tasks by session
#     (autogroup), each lane is a session of its own, which has the same
#     effect.)
# Each lane is a process group of its own, so that a failing step stops all
# of it.
lanes=()
lane() {
	local name=$1 niceness=$2 log
	shift 2
	log=$(mktemp)
	step "$name (in the background)"
	setsid nice -n "$niceness" bash -c "$*" >"$log" 2>&1 &
	lanes+=("$!:$log:$name")
}
stop_lanes() {
	local l
	for l in ${lanes[@]+"${lanes[@]}"}; do
		kill -- "-${l%%:*}" 2>/dev/null || true
		l=${l#*:}
		rm -f "${l%%:*}"
	done
}
trap stop_lanes EXIT

examples=github.com/vmnetkit/vmnetkit/examples
dhcp=$(printf "$examples/dhcpagent/%s " agent e2e . internal/netnstest packetsocket udpsocket)
dhcp=${dhcp//\/. / }
# The three longest packages first, so that they start first.
slow=$(printf "$examples/%s " capiipam/controller operator/controller capiipam/clusterctltest)
rest=$(cd examples && GOWORK=off go list ./... | grep -v -x $(printf -- '-e %s ' $dhcp $slow))
lane "go test -race, the DHCP lane (examples module)" 0 \
	"cd examples && GOWORK=off go test -race -count=1 $dhcp"
lane "go test -race, the API-server lane (the rest of the examples module)" 10 \
	"cd examples && GOWORK=off go test -race -count=1 -p 3 $slow" $rest
renice -n 10 $$ >/dev/null

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

step "go test -race (root module, fuzz seeds included)"
GOWORK=off go test -race -count=1 ./...

# fuzz runs every Fuzz target of the module in folder $1 for $fuzztime
# (inputs, or a duration). The targets are found in the test files' text
# (`go test -list` would build every package's test binary once more), and
# each package's instrumented test binary is built once for all its targets,
# then run as `go test -fuzz` runs it: in the package's folder (a failing
# input is written to its testdata/fuzz), with Go's fuzz cache.
fuzzbin=$(mktemp -d)
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

step "short fuzz runs, examples module (${fuzztime} each)"
fuzz examples
rm -rf "$fuzzbin"

step "quickstart"
go run ./examples/quickstart >/dev/null

failed=""
for l in "${lanes[@]}"; do
	pid=${l%%:*}
	l=${l#*:}
	rc=0
	wait "$pid" || rc=$?
	step "${l#*:} (finished, exit $rc)"
	cat "${l%%:*}"
	[ $rc = 0 ] || failed="$failed
FAIL (exit $rc): ${l#*:}"
done
if [ -n "$failed" ]; then
	echo "$failed"
	exit 1
fi

echo
echo "all checks passed in $((SECONDS - start)) s"
