#!/usr/bin/env bash
# bench-dhcp.sh compares the DHCP agent with ISC Kea under ISC's perfdhcp
# (`make bench-dhcp`, as root; not part of `make test`). Both servers serve
# the same pool (a /16 with CLIENTS leases, every option the lab pool sets)
# in one network namespace; perfdhcp runs in another, across a veth pair,
# as a relay (it sets giaddr), with CLIENTS different MACs. The rounds
# interleave the two servers, so that a load spike on this shared machine
# hits both alike. Each round, for each server:
#
#   saturation: perfdhcp asks for far more than a server can do (-r 50000)
#               for PERIOD seconds; its "Rate" is the 4-way exchanges/s done;
#   at RATE/s:  perfdhcp at RATE exchanges/s for PERIOD seconds, then 1 s
#               more (-W) for the replies in flight when the period ends, so
#               that an exchange the period's end cut short is not a drop:
#               the drops it counts, the server's CPU time (user + system,
#               from /proc/PID/stat) per 1,000 completed exchanges, and its
#               threads' context switches (/proc/PID/task/*/status) per
#               exchange;
#   burst:      BURST exchanges started at 20,000/s (every VM of a host
#               booting at once), each given 4 s, a real client's first
#               retransmission time, instead of perfdhcp's 1 s: how many
#               complete. This is what the socket receive buffer is for.
#
# Kea is kea-dhcp4 2.2 from Debian, memfile lease database without
# persistence (nothing written to disk, as the agent writes nothing).
#
#   ROUNDS=3 PERIOD=5 CLIENTS=1000 RATE=5000 BURST=3000 ./hack/bench-dhcp.sh   # defaults
#
# AGENT_FLAGS are more flags for the agent (e.g. "-rcvbuf 212992").
# BASE=path/to/dhcpagent adds a third server to each round, "base": another
# build of the agent (e.g. of main) run with -pool and -iface only, to see
# what a change did.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
period=${PERIOD:-5}
clients=${CLIENTS:-1000}
rate=${RATE:-5000}
burst=${BURST:-3000}
export GOWORK=off GOFLAGS=${GOFLAGS:--buildvcs=false}

if [ "$(id -u)" != 0 ]; then
	echo "bench-dhcp.sh: needs root (network namespaces, port 67)" >&2
	exit 1
fi
missing=""
command -v ip >/dev/null || missing="$missing iproute2"
command -v perfdhcp >/dev/null || missing="$missing kea-admin"
command -v kea-dhcp4 >/dev/null || missing="$missing kea-dhcp4-server"
if [ -n "$missing" ]; then
	echo "=== installing$missing" >&2
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
fi

work=$(mktemp -d)
id=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
ns_s=vmnetkit-bench-s-$id ns_c=vmnetkit-bench-c-$id if_s=vbs$id if_c=vbc$id
server_pid=""
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	ip netns del "$ns_s" 2>/dev/null || true
	ip netns del "$ns_c" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$ns_s"
ip netns add "$ns_c"
ip link add "$if_s" netns "$ns_s" type veth peer name "$if_c" netns "$ns_c"
ip -n "$ns_s" addr add 10.77.0.2/16 dev "$if_s"
ip -n "$ns_c" addr add 10.77.0.3/16 dev "$if_c"
ip -n "$ns_s" link set "$if_s" up
ip -n "$ns_c" link set "$if_c" up
ip -n "$ns_s" link set lo up
ip -n "$ns_c" link set lo up

echo "=== building the agent" >&2
(cd examples && go build -o "$work/dhcpagent" ./dhcpagent)

# The pool: MAC 52:54:00:00:hi:lo + i at 10.77.(10+i/256).(i%256), for the
# MACs perfdhcp draws from -b mac=52:54:00:00:00:00 -R $clients.
{
	printf '{"metadata": {"name": "bench", "namespace": "default", "resourceVersion": "1"},\n'
	printf ' "spec": {"cidr": "10.77.0.0/16", "rangeStart": "10.77.10.0", "rangeEnd": "10.77.250.255",\n'
	printf '  "serverIP": "10.77.0.2", "router": "10.77.0.1", "dns": ["10.77.0.2"], "ntp": ["10.77.0.2"],\n'
	printf '  "domain": "lab.example", "leaseTime": "1h"},\n'
	printf ' "status": {"allocated": {'
	for ((i = 0; i < clients; i++)); do
		[ "$i" -gt 0 ] && printf ','
		printf '"10.77.%d.%d": "52:54:00:00:%02x:%02x"' $((10 + i / 256)) $((i % 256)) $((i / 256)) $((i % 256))
	done
	printf '}}}\n'
} >"$work/pool.json"

cat >"$work/kea.json" <<EOF
{"Dhcp4": {
  "interfaces-config": {"interfaces": ["$if_s"], "dhcp-socket-type": "raw"},
  "lease-database": {"type": "memfile", "persist": false, "lfc-interval": 0},
  "valid-lifetime": 3600, "renew-timer": 1800, "rebind-timer": 3150,
  "option-data": [
    {"name": "routers", "data": "10.77.0.1"}, {"name": "domain-name-servers", "data": "10.77.0.2"},
    {"name": "ntp-servers", "data": "10.77.0.2"}, {"name": "domain-name", "data": "lab.example"}],
  "subnet4": [{"id": 1, "subnet": "10.77.0.0/16", "pools": [{"pool": "10.77.10.0 - 10.77.250.255"}]}],
  "loggers": [{"name": "kea-dhcp4", "severity": "WARN", "output_options": [{"output": "$work/kea.log"}]}]
}}
EOF

start() {
	case $1 in
	agent) ip netns exec "$ns_s" "$work/dhcpagent" -pool "$work/pool.json" -iface "$if_s" -summary 0 ${AGENT_FLAGS:-} 2>"$work/agent.log" & ;;
	base) ip netns exec "$ns_s" "$BASE" -pool "$work/pool.json" -iface "$if_s" 2>"$work/base.log" & ;;
	kea) ip netns exec "$ns_s" env KEA_PIDFILE_DIR="$work" KEA_LOCKFILE_DIR="$work" kea-dhcp4 -c "$work/kea.json" >"$work/kea.out" 2>&1 & ;;
	esac
	server_pid=$!
	sleep 1.5
	kill -0 "$server_pid" || { echo "$1 did not start:" >&2; cat "$work/$1".* >&2; exit 1; }
}
stop() {
	kill "$server_pid"
	wait "$server_pid" 2>/dev/null || true
	server_pid=""
}
# cpu_ticks is the server's user and system CPU time, in clock ticks.
cpu_ticks() { awk '{print $14, $15}' "/proc/$server_pid/stat"; }
# switches is the number of context switches of all the server's threads.
switches() { cat /proc/"$server_pid"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'; }
perf() {
	# perfdhcp exits 3 when it counted drops: that is a result, not a failure.
	ip netns exec "$ns_c" perfdhcp -4 -l "$if_c" -b mac=52:54:00:00:00:00 -R "$clients" -p "$period" "$@" 10.77.0.2 2>&1 || true
}
# exchanges is the number of complete 4-way exchanges in a perfdhcp output:
# the REQUEST-ACK received packets.
exchanges() { awk '/Statistics for: REQUEST-ACK/ {s=1} s && /received packets:/ {print $3; exit}' ; }
drops() { awk '/drops:/ {d += $2} END {print d + 0}'; }
rate_of() { awk '/^Rate:/ {print $2; exit}'; }

hz=$(getconf CLK_TCK)
results=$work/results
: >"$results"
for round in $(seq "$rounds"); do
	for server in agent kea ${BASE:+base}; do
		echo "=== round $round of $rounds: $server" >&2
		start "$server"
		perf -r 100 -p 1 >"$work/warmup.$server" # warm up: every client gets its lease once
		sat=$(perf -r 50000 | rate_of)
		read -r user0 sys0 < <(cpu_ticks)
		cs0=$(switches)
		out=$(perf -r "$rate" -W 1000000)
		read -r user1 sys1 < <(cpu_ticks)
		cs1=$(switches)
		b=$(perf -r 20000 -n "$burst" -d 4 -W 4000000 | exchanges)
		stop
		n=$(echo "$out" | exchanges)
		d=$(echo "$out" | drops)
		per1000() { awk -v t="$1" -v hz="$hz" -v n="$n" 'BEGIN {printf "%.1f", n ? t * 1000 / hz * 1000 / n : -1}'; }
		cpu=$(per1000 $((user1 + sys1 - user0 - sys0)))
		usr=$(per1000 $((user1 - user0)))
		sys=$(per1000 $((sys1 - sys0)))
		cs=$(awk -v c=$((cs1 - cs0)) -v n="$n" 'BEGIN {printf "%.2f", n ? c / n : -1}')
		echo "$server $round $sat $d $n $cpu ${b:-0} $usr $sys $cs" | tee -a "$results" >&2
	done
done

echo
echo "perfdhcp, $rounds interleaved rounds, $clients clients, ${period}s per measurement, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
awk -v rate="$rate" -v burst="$burst" '
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ k = $1; n[k]++; sat[k, n[k]] = $3; drop[k, n[k]] = $4; cpu[k, n[k]] = $6; bur[k, n[k]] = $7; usr[k, n[k]] = $8; sys[k, n[k]] = $9; csw[k, n[k]] = $10 }
END {
	printf "| server | saturation, exchanges/s (median; each round) | drops at %d/s (each round) | CPU ms per 1,000 exchanges at %d/s, median (user, system) | context switches per exchange at %d/s, median | burst of %d at 20,000/s: completed (each round) |\n", rate, rate, rate, burst
	printf "|---|---|---|---|---|---|\n"
	for (s = 0; s < 3; s++) {
		k = s == 0 ? "agent" : s == 1 ? "kea" : "base"
		if (!n[k]) continue
		list = ""; dl = ""; bl = ""
		for (i = 1; i <= n[k]; i++) { a[i] = sat[k, i]; list = list (i > 1 ? ", " : "") sat[k, i]; dl = dl (i > 1 ? ", " : "") drop[k, i]; bl = bl (i > 1 ? ", " : "") bur[k, i] }
		ms[k] = median(a, n[k])
		for (i = 1; i <= n[k]; i++) a[i] = cpu[k, i]
		mc[k] = median(a, n[k])
		for (i = 1; i <= n[k]; i++) a[i] = usr[k, i]
		mu = median(a, n[k])
		for (i = 1; i <= n[k]; i++) a[i] = sys[k, i]
		msys = median(a, n[k])
		for (i = 1; i <= n[k]; i++) a[i] = csw[k, i]
		mcs = median(a, n[k])
		printf "| %s | %.0f (%s) | %s | %.1f (%.1f, %.1f) | %.2f | %s |\n", k, ms[k], list, dl, mc[k], mu, msys, mcs, bl
	}
	printf "\nagent / Kea: saturation %.2fx (goal >= 1.5x), CPU per exchange %.2fx (goal <= 1x)\n", ms["agent"] / ms["kea"], mc["agent"] / mc["kea"]
	if (n["base"]) printf "agent / base: saturation %.2fx, CPU per exchange %.2fx\n", ms["agent"] / ms["base"], mc["agent"] / mc["base"]
}' "$results"
