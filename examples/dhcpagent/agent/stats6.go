package agent

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/metrics"
)

// Stats6 is Stats for the DHCPv6 side: its totals (Offers counts
// ADVERTISEs, Acks REPLYs; Naks stays zero, DHCPv6 refuses inside a
// REPLY), the table's identity, the IPv6 table's leases, and the
// probation (one set for both families) at now.
func (a *Agent) Stats6(now time.Time) metrics.Stats {
	s := a.counters6.Read()
	s.OnProbation = a.probation.Len(now)
	if c := a.checksums6.Load(); c != nil {
		s.BadChecksums = (*c).BadChecksums()
	}
	if v := a.table.Load(); v != nil {
		s.Pool, s.ResourceVersion, s.Leases = v.pool, v.resourceVersion, v.store6().Len()
	}
	return s
}

// Collector6 returns a Prometheus collector of the agent's Stats6 (see
// metrics.NewCollector6 for the series), to register beside Collector.
func (a *Agent) Collector6() prometheus.Collector {
	return metrics.NewCollector6(func() metrics.Stats { return a.Stats6(a.now()) })
}
