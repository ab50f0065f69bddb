#!/usr/bin/env bash
# bench.sh measures the ipam table of docs/performance.md (`make bench`): the ipam
# benchmarks beside their in-repo baselines (naive, flat, sort), all in one
# run. The machine these numbers come from is shared and noisy, so the run is
# COUNT rounds of every benchmark once, interleaved: a load spike then hits
# Pool and its baseline alike instead of one of them for all its runs. It
# prints benchstat's summary, then the ratios docs/performance.md quotes, computed
# from the medians.
#
#   COUNT=6 BENCH=. ./hack/bench.sh     # defaults
#
# The raw output is kept in $BENCH_OUT for benchstat comparisons.
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/bench-lib.sh
count=${COUNT:-6}
bench=${BENCH:-.}
out=${BENCH_OUT:-${TMPDIR:-/tmp}/vmnetkit-bench-ipam.txt}
export GOWORK=off

bin=$(mktemp -d)/ipam.test
go test -c -o "$bin" ./ipam
: >"$out"
for round in $(seq "$count"); do
	echo "=== round $round of $count" >&2
	(cd ipam && "$bin" -test.run '^$' -test.bench "$bench" -test.count 1 -test.timeout 60m) | tee -a "$out"
done
rm -f "$bin"

summarize "$out"

echo
echo "ratios of medians over $count rounds (wall: ns/alloc; cpu: cpu-ns/alloc, the process's CPU time)"
echo
awk "$awk_medians"'
function verdict(r, op, target) {
	if (r < 0) return "not run"
	if ((op == "<=" && r <= target) || (op == ">=" && r >= target)) return "met"
	return "missed"
}
function fmt(r) {
	if (r < 0) return "-"
	if (r >= 100) return sprintf("%.0fx", r)
	return sprintf("%.2fx", r)
}
function ratio(label, a, b, unit, op, target,    x, y) {
	x = med(a, unit); y = med(b, unit)
	if (x < 0 || y <= 0) return -1
	return x / y
}
function row(label, a, b, op, target,    w, c) {
	w = ratio(label, a, b, "ns/alloc")
	c = ratio(label, a, b, "cpu-ns/alloc")
	printf "| %s | %s %s | %s (%s) | %s (%s) |\n", label, op, target "x", fmt(w), verdict(w, op, target), fmt(c), verdict(c, op, target)
}
END {
	print "| target | goal | wall-time ratio | CPU-time ratio |"
	print "|---|---|---|---|"
	row("fill a /16: Pool / flat", "Fill/v4-16/pool", "Fill/v4-16/flat", "<=", 2)
	row("fill a /18: naive / Pool", "Fill/v4-18/naive", "Fill/v4-18/pool", ">=", 10)
	row("churn at 90% of a /16: Pool / flat", "Churn/v4-16/pool", "Churn/v4-16/flat", "<=", 2)
	row("churn at 90% of a /8: Pool / flat", "Churn/v4-8/pool", "Churn/v4-8/flat", "<=", 2)
	row("churn, Pool: /8 / /16", "Churn/v4-8/pool", "Churn/v4-16/pool", "<=", 1)
	row("restore 16,000 into a /16: naive / Pool", "Restore/16k-v4-16/naive", "Restore/16k-v4-16/pool", ">=", 10000)
	row("restore 100,000 shuffled in a /12: Pool / slices.SortFunc", "Restore/100k-v4-12/pool", "Restore/100k-v4-12/sort", "<=", 3)
	row("restore 16,000 from a status map: ParseAllocated + Restore / Restore of the parsed snapshot", "RestoreStatusMap/16k-v4-16/parse+restore", "RestoreStatusMap/16k-v4-16/parsed", "<=", 1.5)
	row("restore 16,000 from a status map: RestoreAllocated / Restore of the parsed snapshot", "RestoreStatusMap/16k-v4-16/restore-allocated", "RestoreStatusMap/16k-v4-16/parsed", "<=", 1.5)
	row("1,000,000 in a /64 / fill a /16, per allocation", "Million/v6-64/pool", "Fill/v4-16/pool", "<=", 2)
	row("1,000,000 scattered AllocateAddr in a /64 / dense Allocate in the /64", "Scattered/v6-64/scattered", "Scattered/v6-64/dense", "<=", 3)
	row("1,000,000 scattered AllocateAddr in ::/0 / dense Allocate in a /64", "Scattered/v6-0/scattered", "Scattered/v6-64/dense", "<=", 3)
	rd = med("Scattered/v6-64/dense", "retained-B/alloc")
	for (k = 1; k <= 2; k++) {
		name = k == 1 ? "v6-64" : "v6-0"
		label = k == 1 ? "a /64" : "::/0"
		rs = med("Scattered/" name "/scattered", "retained-B/alloc")
		if (rs > 0 && rd > 0)
			printf "| heap retained, 1,000,000 scattered in %s / dense in a /64 | <= 1.5x | %.2fx (%s) | %.0f B vs %.0f B per allocation |\n", label, rs / rd, verdict(rs / rd, "<=", 1.5), rs, rd
	}
	r6 = med("Million/v6-64/pool", "retained-B/alloc")
	r4 = med("Million/v4-12/pool", "retained-B/alloc")
	if (r6 > 0 && r4 > 0) {
		printf "| heap retained, 1,000,000 in a /64 / in a /12 | <= 1.25x | %.2fx (%s) | %.0f B vs %.0f B per allocation |\n", r6 / r4, verdict(r6 / r4, "<=", 1.25), r6, r4
		printf "| heap retained per allocation, /64, 17-byte owners | <= 160 B | %.0f B (%s) | |\n", r6, verdict(r6, "<=", 160)
	}
}' "$out"
