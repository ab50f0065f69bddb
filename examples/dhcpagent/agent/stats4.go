package agent

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vmnetkit/vmnetkit/examples/dhcpagent/metrics"

	"context"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

// countReply counts a DHCPv4 reply of type typ by its kind.
func countReply(c *metrics.Counters, typ dhcpv4.MessageType) {
	switch typ {
	case dhcpv4.MessageTypeOffer:
		c.Offers.Add(1)
	case dhcpv4.MessageTypeAck:
		c.Acks.Add(1)
	case dhcpv4.MessageTypeNak:
		c.Naks.Add(1)
	}
}

// Stats reads the agent's totals (each atomically, not all at one
// instant) and the table being served, with the probation at now.
func (a *Agent) Stats(now time.Time) metrics.Stats {
	s := a.counters.Read()
	s.OnProbation = a.probation.Len(now)
	if v := a.table.Load(); v != nil {
		s.Pool, s.ResourceVersion, s.Leases = v.pool, v.resourceVersion, v.table.Len()
	}
	return s
}

// Collector returns a Prometheus collector of the agent's Stats, read
// when scraped (see metrics.NewCollector for the series).
func (a *Agent) Collector() prometheus.Collector {
	return metrics.NewCollector(func() metrics.Stats { return a.Stats(a.now()) })
}

// Summarize logs a summary line at level 0 every interval until ctx is
// done, and returns ctx.Err(): the counts since the last line (received,
// offers, acks, naks, declines, probations lifted, releases, drops, send
// errors, replies dropped for want of room) and the
// table being served (pool, resourceVersion, leases, loads, addresses on
// probation). It is how an operator sees the traffic without a line per
// packet.
func (a *Agent) Summarize(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	last := a.Stats(a.now())
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			s := a.Stats(a.now())
			a.log.Info("summary", "interval", interval.String(),
				"received", s.Received-last.Received, "offers", s.Offers-last.Offers, "acks", s.Acks-last.Acks,
				"naks", s.Naks-last.Naks, "declines", s.Declines-last.Declines, "lifts", s.Lifts-last.Lifts, "releases", s.Releases-last.Releases,
				"drops", s.Drops-last.Drops, "sendErrors", s.SendErrors-last.SendErrors, "sendDropped", s.SendDropped-last.SendDropped,
				"pool", s.Pool, "resourceVersion", s.ResourceVersion, "leases", s.Leases, "loads", s.Loads,
				"onProbation", s.OnProbation)
			last = s
		}
	}
}
