// Package metrics is what the agent counts, and nothing else: the running
// totals a server adds to on every message ([Counters]), their reading
// with the table being served ([Stats]), and Prometheus collectors of
// them. Counters know no protocol: each handler counts into Counters of
// its own, its replies by kind. The DHCPv4 handler's are the agent's
// historical series ([NewCollector], dhcpagent_*); the DHCPv6 handler's
// are series of their own ([NewCollector6], dhcpagent_dhcpv6_*), so that
// each protocol is seen apart and no existing series changes meaning.
package metrics
