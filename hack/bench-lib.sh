# bench-lib.sh holds what the benchmark scripts share; they source it.

# summarize prints benchstat's summary of the benchmark output in file $1,
# or says how to get benchstat.
summarize() {
	local benchstat
	benchstat=$(command -v benchstat || true)
	if [ -z "$benchstat" ] && [ -x "$(go env GOPATH)/bin/benchstat" ]; then
		benchstat="$(go env GOPATH)/bin/benchstat"
	fi
	echo
	if [ -n "$benchstat" ]; then
		"$benchstat" "$1"
	else
		echo "benchstat not found (go install golang.org/x/perf/cmd/benchstat@latest); ratios below use medians"
	fi
}

# awk_medians is awk source to put before a script's own rules: it reads
# every benchmark line and defines med(name, unit), the median of a metric
# of the benchmark name (without "Benchmark" and the -GOMAXPROCS suffix),
# or -1 if it was not run.
awk_medians='
/^Benchmark/ {
	name = $1
	sub(/^Benchmark/, "", name)
	sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i += 2) {
		k = name "|" $(i + 1)
		v[k, ++n[k]] = $i + 0
	}
}
function med(name, unit,    k, m, i, j, t, a) {
	k = name "|" unit
	m = n[k]
	if (m == 0) return -1
	for (i = 1; i <= m; i++) a[i] = v[k, i]
	for (i = 2; i <= m; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
'
