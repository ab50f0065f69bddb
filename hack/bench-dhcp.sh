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
# DHCPv6 (PROTOCOLS contains 6): the same pool file gains an IPv6 part
# with the same CLIENTS MACs (00:00:5e:00:54:00 + i at 2001:db8:30::1:i),
# and kea-dhcp6 2.2 (memfile without persistence, WARN logs) reserves the
# same addresses by MAC (hw-address, "mac-sources": ["any"]). perfdhcp -6
# multicasts SOLICIT and REQUEST from the client namespace's link-local
# address (-l), each simulated client with a DUID-LLT of its MAC. Each
# round, for each server, each measurement on a freshly started server:
# saturation (-r 50000; with perfdhcp's own CPU time, which bounds it
# here), then each rate of RATES6 for PERIOD seconds plus the 1 s drain
# (-W): completed exchanges/s (perfdhcp's Rate), drops, and the server's
# CPU ms per 1,000 exchanges.
#
#   ROUNDS=3 PERIOD=5 CLIENTS=1000 RATE=5000 BURST=3000 PROTOCOLS="4 6" RATES6="1000 5000" ./hack/bench-dhcp.sh   # defaults
#
# AGENT_FLAGS are more flags for the agent (e.g. "-rcvbuf 212992").
# BASE=path/to/dhcpagent adds a third server to each round, "base": another
# build of the agent (e.g. of main) run with -pool and -iface only, to see
# what a change did (in the DHCPv4 and the DHCPv6 rounds).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
period=${PERIOD:-5}
clients=${CLIENTS:-1000}
rate=${RATE:-5000}
burst=${BURST:-3000}
protocols=${PROTOCOLS:-4 6}
rates6=${RATES6:-1000 5000}
servers6=${SERVERS6:-agent${BASE:+ base} kea6}
want() { [[ " $protocols " == *" $1 "* ]]; }
export GOWORK=off GOFLAGS=${GOFLAGS:--buildvcs=false}

if [ "$(id -u)" != 0 ]; then
	echo "bench-dhcp.sh: needs root (network namespaces, port 67)" >&2
	exit 1
fi
missing=""
command -v ip >/dev/null || missing="$missing iproute2"
command -v perfdhcp >/dev/null || missing="$missing kea-admin"
command -v kea-dhcp4 >/dev/null || missing="$missing kea-dhcp4-server"
command -v kea-dhcp6 >/dev/null || missing="$missing kea-dhcp6-server"
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
	[ -n "${KEEP:-}" ] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$ns_s"
ip netns add "$ns_c"
for ns in "$ns_s" "$ns_c"; do # addresses usable at once, without duplicate address detection
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_dad=0
done
ip link add "$if_s" netns "$ns_s" type veth peer name "$if_c" netns "$ns_c"
ip -n "$ns_s" addr add 10.77.0.2/16 dev "$if_s"
ip -n "$ns_c" addr add 10.77.0.3/16 dev "$if_c"
ip -n "$ns_s" addr add 2001:db8:30::1/64 dev "$if_s" nodad
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
	printf '  "domain": "lab.example", "leaseTime": "1h"'
	want 6 && printf ',\n  "ipv6": {"cidr": "2001:db8:30::/64", "dns": ["2001:db8:30::53"], "domainSearch": ["lab.example"],\n   "preferredLifetime": "30m", "validLifetime": "1h"}'
	printf '},\n "status": {"allocated": {'
	for ((i = 0; i < clients; i++)); do
		[ "$i" -gt 0 ] && printf ','
		printf '"10.77.%d.%d": "52:54:00:00:%02x:%02x"' $((10 + i / 256)) $((i % 256)) $((i / 256)) $((i % 256))
	done
	printf '}'
	if want 6; then
		printf ',\n  "ipv6": {"allocated": {'
		for ((i = 0; i < clients; i++)); do
			[ "$i" -gt 0 ] && printf ','
			printf '"2001:db8:30::1:%x": "00:00:5e:00:%02x:%02x"' $i $((0x54 + i / 256)) $((i % 256))
		done
		printf '}}'
	fi
	printf '}}\n'
} >"$work/pool.json"

# kea-dhcp6: the same MACs reserved the same addresses.
{
	printf '{"Dhcp6": {\n  "interfaces-config": {"interfaces": ["%s"]},\n' "$if_s"
	printf '  "lease-database": {"type": "memfile", "persist": false, "lfc-interval": 0},\n'
	printf '  "server-id": {"type": "LL", "persist": false},\n'
	printf '  "mac-sources": ["any"], "host-reservation-identifiers": ["hw-address"],\n'
	printf '  "preferred-lifetime": 1800, "valid-lifetime": 3600,\n'
	printf '  "option-data": [{"name": "dns-servers", "data": "2001:db8:30::53"}, {"name": "domain-search", "data": "lab.example"}],\n'
	printf '  "subnet6": [{"id": 1, "subnet": "2001:db8:30::/64", "interface": "%s", "reservations": [' "$if_s"
	for ((i = 0; i < clients; i++)); do
		[ "$i" -gt 0 ] && printf ','
		printf '\n    {"hw-address": "00:00:5e:00:%02x:%02x", "ip-addresses": ["2001:db8:30::1:%x"]}' $((0x54 + i / 256)) $((i % 256)) $i
	done
	printf ']}],\n  "loggers": [{"name": "kea-dhcp6", "severity": "WARN", "output_options": [{"output": "%s/kea6.log"}]}]\n}}\n' "$work"
} >"$work/kea6.json"

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
	kea6) ip netns exec "$ns_s" env KEA_PIDFILE_DIR="$work" KEA_LOCKFILE_DIR="$work" kea-dhcp6 -c "$work/kea6.json" >"$work/kea6.out" 2>&1 & ;;
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
if want 4; then
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
fi


# perf6 runs perfdhcp -6 with "$@" and prints its output, then its CPU
# time (user + system, ms) on a last line "perfdhcp-cpu-ms N".
perf6() {
	local t
	t=$( (ip netns exec "$ns_c" perfdhcp -6 -l "$if_c" -b mac=00:00:5e:00:54:00 -R "$clients" "$@" >"$work/perf6.out" 2>&1 || true; times) | tail -1)
	cat "$work/perf6.out"
	# times: "0m1.230s 0m0.450s" for the children, user then system.
	echo "$t" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "perfdhcp-cpu-ms %.0f\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }'
}
# rcvbuf_errors6 is the client namespace's count of UDP datagrams its
# kernel dropped because the receiving socket (perfdhcp's) was full:
# replies that were sent and arrived, which perfdhcp then counts as drops.
rcvbuf_errors6() { ip netns exec "$ns_c" awk '$1 == "Udp6RcvbufErrors" {print $2}' /proc/net/snmp6; }
# replies6 is the number of completed exchanges (REQUEST-REPLY received).
replies6() { awk '/Statistics for: REQUEST-REPLY/ {s=1} s && /received packets:/ {print $3; exit}'; }
if want 6; then
	results6=$work/results6
	: >"$results6"
	for round in $(seq "$rounds"); do
		for server in $servers6; do
			echo "=== DHCPv6 round $round of $rounds: $server" >&2
			# A fresh server for each measurement: each perfdhcp run gives
			# its clients new DUID-LLTs (the time in them), and Kea keeps
			# a reserved address leased to the previous run's DUID of the
			# MAC, which would leave the next run nothing to allocate.
			start "$server"
			out=$(perf6 -r 50000 -p "$period")
			stop
			echo "$server $round sat - $(echo "$out" | rate_of) $(echo "$out" | awk '/perfdhcp-cpu-ms/ {print $2}')" | tee -a "$results6" >&2
			for r in $rates6; do
				start "$server"
				read -r user0 sys0 < <(cpu_ticks)
				ovf0=$(rcvbuf_errors6)
				out=$(perf6 -r "$r" -p "$period" -W 1000000)
				ovf1=$(rcvbuf_errors6)
				read -r user1 sys1 < <(cpu_ticks)
				stop
				echo "$out" >"$work/rate6.$server.$r.$round"
				n=$(echo "$out" | replies6)
				cpu=$(awk -v t=$((user1 + sys1 - user0 - sys0)) -v hz="$hz" -v n="$n" 'BEGIN {printf "%.1f", n ? t * 1000 / hz * 1000 / n : -1}')
				echo "$server $round $r $(echo "$out" | drops) $(echo "$out" | rate_of) $n $cpu $((ovf1 - ovf0))" | tee -a "$results6" >&2
			done
		done
	done
	echo
	echo "perfdhcp -6, $rounds interleaved rounds, $clients clients, ${period}s per measurement, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	awk -v rates="$rates6" '
	function median(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$3 == "sat" { k = $1 SUBSEP "sat"; n[k]++; v[k, n[k]] = $5; pc[k, n[k]] = $6; next }
	{ k = $1 SUBSEP $3; n[k]++; drop[k, n[k]] = $4; done[k, n[k]] = $5; cpu[k, n[k]] = $7; ovf[k, n[k]] = $8 }
	END {
		printf "| server | offered | completed/s, median (each round) | drops (each round) [of them, replies perfdhcp'"'"'s full socket dropped] | server CPU ms per 1,000 exchanges, median (each round) |\n|---|---|---|---|---|\n"
		nr = split(rates, rl, " ")
		ns = split("agent base kea6", sv, " ")
		for (s = 1; s <= ns; s++) {
			srv = sv[s]
			for (r = 1; r <= nr; r++) {
				k = srv SUBSEP rl[r]
				if (!n[k]) continue
				dl = ""; cl = ""; rl2 = ""
				for (i = 1; i <= n[k]; i++) { a[i] = done[k, i]; dl = dl (i > 1 ? ", " : "") drop[k, i] " [" ovf[k, i] "]"; rl2 = rl2 (i > 1 ? ", " : "") done[k, i] }
				md = median(a, n[k])
				for (i = 1; i <= n[k]; i++) { a[i] = cpu[k, i]; cl = cl (i > 1 ? ", " : "") cpu[k, i] }
				mc[srv, rl[r]] = median(a, n[k])
				printf "| %s | %d/s | %.0f (%s) | %s | %.1f (%s) |\n", srv, rl[r], md, rl2, dl, mc[srv, rl[r]], cl
			}
			k = srv SUBSEP "sat"
			if (n[k]) {
				sl = ""; pl = ""
				for (i = 1; i <= n[k]; i++) { a[i] = v[k, i]; sl = sl (i > 1 ? ", " : "") v[k, i]; pl = pl (i > 1 ? ", " : "") pc[k, i] }
				printf "| %s | saturation (-r 50000) | %.0f (%s) | perfdhcp CPU ms per %ss: %s | |\n", srv, median(a, n[k]), sl, "'"$period"'", pl
			}
		}
		for (r = 1; r <= nr; r++) if (mc["kea6", rl[r]] > 0) printf "\nagent / Kea CPU per exchange at %d/s: %.2fx (goal <= 0.5x)", rl[r], mc["agent", rl[r]] / mc["kea6", rl[r]]
		for (r = 1; r <= nr; r++) if (mc["base", rl[r]] > 0) printf "\nagent / base CPU per exchange at %d/s: %.2fx", rl[r], mc["agent", rl[r]] / mc["base", rl[r]]
		printf "\n"
	}' "$results6"
fi
