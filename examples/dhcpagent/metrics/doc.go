// Package metrics is what the agent counts, and nothing else: the running
// totals a server adds to on every message ([Counters]), their reading
// with the table being served ([Stats]), and a Prometheus collector of
// them ([NewCollector]). It knows no protocol: each handler (DHCPv4 today,
// DHCPv6 later) counts into the same Counters, its replies by kind, so
// that one agent reports one set of series.
package metrics
