#!/usr/bin/env bash
# bench-leasestore.sh measures the leasestore table of docs/performance.md
# (`make bench-leasestore`): Build beside its floor (ParseMAC of every owner
# + slices.SortFunc), Diff per lease, and the heap a Store retains. The
# machine these numbers come from is shared and noisy, so the run is COUNT
# rounds of every benchmark once, interleaved: a load spike hits Build and
# its floor alike. With BASE set to a git revision, that revision's
# benchmarks run in the same rounds (as "base"), for a before/after.
#
#   COUNT=6 BASE=HEAD~1 ./hack/bench-leasestore.sh
#
# The raw output is kept in $BENCH_OUT for benchstat comparisons.
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/bench-lib.sh
count=${COUNT:-6}
out=${BENCH_OUT:-${TMPDIR:-/tmp}/vmnetkit-bench-leasestore.txt}
export GOWORK=off

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/new.test" ./leasestore
bins=(new)
if [ -n "${BASE:-}" ]; then
	git worktree add -q --detach "$tmp/base" "$BASE"
	(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./leasestore)
	git worktree remove --force "$tmp/base"
	bins=(base new)
fi
: >"$out"
for round in $(seq "$count"); do
	echo "=== round $round of $count" >&2
	for b in "${bins[@]}"; do
		(cd leasestore && "$tmp/$b.test" -test.run '^$' -test.bench . -test.count 1 -test.timeout 60m) |
			grep '^Benchmark' | sed "s/^Benchmark/Benchmark$b\//" | tee -a "$out"
	done
done

summarize "$out"

echo
echo "medians over $count rounds; Build ratios are to the floor of the same run (wall: ns/alloc; cpu: cpu-ns/alloc)"
echo
awk -v bins="${bins[*]}" "$awk_medians"'
function ratio(a, b, unit,    x, y) {
	x = med(a, unit); y = med(b, unit)
	if (x < 0 || y <= 0) return "-"
	return sprintf("%.2fx", x / y)
}
END {
	nb = split(bins, bs, " ")
	print "| version | case | Build | floor | ratio (CPU) |"
	print "|---|---|---|---|---|"
	for (bi = 1; bi <= nb; bi++) {
		b = bs[bi]
		split("65536 1000000", sizes, " ")
		for (si = 1; si <= 2; si++) {
			no = split("sorted shuffled sorted-any-vendor", orders, " ")
			for (oi = 1; oi <= no; oi++) {
				base = b "/Build/n=" sizes[si] "/order=" orders[oi]
				if (med(base "/op=build", "ns/alloc") < 0) continue
				printf "| %s | n=%s %s | %.1f ns | %.1f ns | %s (%s) |\n", b, sizes[si], orders[oi],
					med(base "/op=build", "ns/alloc"), med(base "/op=floor", "ns/alloc"),
					ratio(base "/op=build", base "/op=floor", "ns/alloc"), ratio(base "/op=build", base "/op=floor", "cpu-ns/alloc")
			}
		}
	}
	# Diff and the bytes of the table, a row per benchmark, in name order (awk
	# gives "for in" none).
	nr = 0
	for (bi = 1; bi <= nb; bi++) {
		b = bs[bi]
		for (k in n) {
			split(k, parts, "|")
			if (index(parts[1], b "/Diff/") == 1 && parts[2] == "ns/lease")
				rows[++nr] = sprintf("| %s | %s | %.2f ns/lease |", b, substr(parts[1], length(b) + 2), med(parts[1], "ns/lease"))
			if (index(parts[1], b "/StoreBytes/") == 1 && parts[2] == "B/lease")
				rows[++nr] = sprintf("| %s | %s | %.1f B/lease |", b, substr(parts[1], length(b) + 2), med(parts[1], "B/lease"))
		}
	}
	for (i = 2; i <= nr; i++) {
		t = rows[i]
		for (j = i - 1; j >= 1 && rows[j] > t; j--) rows[j + 1] = rows[j]
		rows[j + 1] = t
	}
	if (nr > 0) {
		print ""
		print "| version | benchmark | median |"
		print "|---|---|---|"
		for (i = 1; i <= nr; i++) print rows[i]
	}
}' "$out"
