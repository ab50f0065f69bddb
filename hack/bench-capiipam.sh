#!/usr/bin/env bash
# bench-capiipam.sh measures the examples/capiipam table of
# docs/performance.md (`make bench-capiipam`): BenchmarkClaim (the in-memory
# allocation against the in-cluster provider's algorithm, three rounds),
# then, against the test kube-apiserver, TestAPICallsPerClaim and
# BenchmarkSettle, BenchmarkStartup and BenchmarkStartupBound (each reports
# the figures of its rows, ratios to a limit measured in the same run). It
# prints the table from what they reported. Not part of make test: the
# 100,000-address and 20,000-claim starts take most of half an hour here.
#
# The raw output is kept in $BENCH_OUT; `bench-capiipam.sh -table` prints
# the table again from it without running anything.
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/bench-lib.sh
out=${BENCH_OUT:-${TMPDIR:-/tmp}/vmnetkit-bench-capiipam.txt}
export GOWORK=off

if [ "${1:-}" != "-table" ]; then
	assets=$(hack/envtest-assets.sh)
	: >"$out"
	(cd examples && go test -run '^$' -bench BenchmarkClaim -benchtime 1s -count 3 ./capiipam/controller/) | tee -a "$out"
	(cd examples && KUBEBUILDER_ASSETS=$assets go test -p 1 -run 'TestAPICallsPerClaim' -v \
		-bench 'BenchmarkSettle|BenchmarkStartup' -benchtime 1x -timeout 90m \
		./capiipam/controller/ ./capiipam/internal/bench/) | tee -a "$out"
fi

echo
echo "examples/capiipam, from one run (medians where a benchmark ran more than once)"
echo
awk "$awk_medians"'
/API requests per claim, [0-9]+ claims:/ {
	burst = $0; sub(/.*API requests per claim, /, "", burst); sub(/ claims:.*/, "", burst)
	total = $0; sub(/.*; total /, "", total); sub(/,.*/, "", total)
}
function verdict(ok) { return ok ? "**met**" : "**missed**" }
function dur(ns) {
	if (ns >= 1e6) return sprintf("%.2f ms", ns / 1e6)
	if (ns >= 1e3) return sprintf("%.2f µs", ns / 1e3)
	return sprintf("%.0f ns", ns)
}
END {
	print "| measure | vmnetkit | limit | ratio | goal |"
	print "|---|---|---|---|---|"
	if (total != "")
		printf "| requests per claim, burst of %s | %.2f | 3.00, the contract floor | %.2fx | at most 4: %s |\n", burst, total, total / 3, verdict(total <= 4)
	c = med("Settle", "claims/s")
	if (c > 0) {
		f = med("Settle", "floor/s")
		printf "| 1,000 claims settled at once | %.1f claims/s | %.1f claims/s, the contract floor | %.2fx | at least 0.8x: %s |\n", c, f, c / f, verdict(c / f >= 0.8)
		printf "| the same | %.1f claims/s | %.1f plain `IPAddress` creates/s | %.2fx | |\n", c, med("Settle", "creates/s"), c / med("Settle", "creates/s")
		printf "| requests per claim of that burst | %.2f | %.2f, the floor'"'"'s | %.2fx | |\n", med("Settle", "requests/claim"), med("Settle", "floor-requests/claim"), med("Settle", "requests/claim") / med("Settle", "floor-requests/claim")
	}
	s = med("Startup", "first-s")
	if (s > 0) {
		l = med("Startup", "list-s")
		printf "| start to the first claim served, 100,000 `IPAddress`es in the pool | %.2f s | %.2f s, paginated List of them | %.2fx | at most 1.5x: %s |\n", s, l, s / l, verdict(s / l <= 1.5)
		r = med("Startup", "lat100k/lat1k")
		printf "| claim latency, create to `addressRef`, median of 20, pool of 100,000 | %.2f ms | %.2f ms, pool of 1,000 | %.2fx | within 1.5x: %s |\n", med("Startup", "lat100k-ms"), med("Startup", "lat1k-ms"), r, verdict(r <= 1.5)
		printf "| heap of the provider per `IPAddress` | %.0f bytes | | | stated |\n", med("Startup", "bytes/address")
	}
	b = med("StartupBound", "first-s")
	if (b > 0) {
		r = med("StartupBound", "first/list-addresses")
		printf "| start to the first new claim served, 20,000 bound claims (median of the starts) | %.2f s | the List of the `IPAddress`es | %.2fx (%.2fx the two Lists) | at most 1.5x: %s |\n", b, r, med("StartupBound", "first/list-both"), verdict(r <= 1.5)
	}
	for (k = 1; k <= 2; k++) {
		p = k == 1 ? "IPv4-slash18" : "IPv6-100k"
		label = k == 1 ? "IPv4 /18 at 90%" : "IPv6 range of 100,000 at 90%"
		ours = med("Claim/" p "/vmnetkit", "ns/op")
		peer = med("Claim/" p "/in-cluster", "ns/op")
		if (ours > 0 && peer > 0)
			printf "| allocation, %s (`BenchmarkClaim`) | %s | %s, in-cluster algorithm | %.0fx faster | |\n", label, dur(ours), dur(peer), peer / ours
	}
}' "$out"
